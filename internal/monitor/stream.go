package monitor

import (
	"fmt"
	"net/http"
	"time"
)

// The task stream's endpoint, /api/stream?window=10s&res=10ms: every
// node's snapshot, as /api/cluster, each with its workers' task frames
// and idle stretches of the last window merged to rectangles res wide at
// least (sched.StreamData), the idle ones marked "wait" where the node
// had asked another node for work and had no answer yet. Asking switches each node's stream on for a
// few seconds: the dashboard asks while its page is open, and a node
// nobody asks records nothing.

// Defaults and bounds of the stream's parameters: the page draws 10 s
// over about a thousand pixels.
const (
	defaultStreamWindow = 10 * time.Second
	defaultStreamRes    = 10 * time.Millisecond
	maxStreamWindow     = time.Minute
	minStreamRes        = 10 * time.Microsecond
)

func (s *Server) apiStream(w http.ResponseWriter, r *http.Request) {
	window, err := durationParam(r, "window", defaultStreamWindow, time.Millisecond, maxStreamWindow)
	if err == nil {
		var res time.Duration
		if res, err = durationParam(r, "res", defaultStreamRes, minStreamRes, window); err == nil {
			writeJSON(w, s.node.ClusterStream(r.Context(), clusterTimeout, window, res))
			return
		}
	}
	http.Error(w, err.Error(), http.StatusBadRequest)
}

// durationParam reads the query parameter name as a Go duration within
// [lo, hi], def when absent.
func durationParam(r *http.Request, name string, def, lo, hi time.Duration) (time.Duration, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return def, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < lo || d > hi {
		return 0, fmt.Errorf("/api/stream: %s=%q: want a duration from %v to %v, such as %v", name, v, lo, hi, def)
	}
	return d, nil
}
