// Package median is the median of a sample, which tsys reports wherever
// it times something on a shared machine: a few samples stretched by
// preemption move a mean far, and a median hardly.
package median

import "slices"

// Of is the middle of xs (the mean of the middle two for an even count);
// 0 for none. xs is left as it was.
func Of[T ~int64 | ~float64](xs []T) T {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
