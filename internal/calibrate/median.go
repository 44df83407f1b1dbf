package calibrate

import (
	"slices"
	"time"
)

// median is the middle of ds (the mean of the middle two for an even
// count), 0 for none. The machines tsys calibrates on are shared: a few
// samples stretched by preemption move a mean far, a median hardly.
func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
