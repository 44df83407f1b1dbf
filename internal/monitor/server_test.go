package monitor

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tsys-go/tsys/internal/cluster"
	"github.com/tsys-go/tsys/internal/promtest"
	"github.com/tsys-go/tsys/internal/sched"
)

type fakeNode struct{ draining atomic.Bool }

func (*fakeNode) Name() string      { return "n1" }
func (*fakeNode) Members() []string { return []string{"n1", "n2"} }
func (f *fakeNode) Draining() bool  { return f.draining.Load() }
func (f *fakeNode) Snapshot() cluster.Snapshot {
	return cluster.Snapshot{Node: "n1", Members: 2, Draining: f.Draining(), Workers: make([]sched.Stats, 2), Jobs: []cluster.JobShare{
		{Job: "a1", Root: "c1", Active: true, Workers: 2},
		{Job: "b3", Root: "c2", Active: true, Workers: 0},
	}}
}
func (f *fakeNode) ClusterSnapshot(context.Context, time.Duration) []cluster.Snapshot {
	return []cluster.Snapshot{f.Snapshot()}
}

// ClusterStream answers with a stream that says what was asked: a
// rectangle from -window to -res.
func (f *fakeNode) ClusterStream(_ context.Context, _, window, res time.Duration) []cluster.Snapshot {
	s := f.Snapshot()
	s.Stream = &sched.StreamData{Node: "n1", On: true, Window: int64(window), Res: int64(res), Workers: 2,
		Rects: []sched.StreamRect{{Worker: 1, Name: "fib", Begin: -int64(window), End: -int64(res), Frames: 3}}}
	return []cluster.Snapshot{s}
}

func get(t *testing.T, url string) (int, health) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var h health
	if err := json.NewDecoder(resp.Body).Decode(&h); err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, h
}

// TestHealthz: ready with the node's name and member count, 503 while it
// drains.
func TestHealthz(t *testing.T) {
	n := &fakeNode{}
	s, err := Start(Config{Addr: "127.0.0.1:0"}, n)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if code, h := get(t, "http://"+s.Addr()+"/healthz"); code != 200 || h.Status != "ready" || h.Node != "n1" || h.Members != 2 {
		t.Errorf("healthz: %d %+v", code, h)
	}
	n.draining.Store(true)
	if code, h := get(t, "http://"+s.Addr()+"/healthz"); code != 503 || h.Status != "draining" {
		t.Errorf("healthz while draining: %d %+v", code, h)
	}
}

// TestRoutableNeedsAKey: without a cluster key, only loopback.
func TestRoutableNeedsAKey(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", ":0"} {
		if _, err := Start(Config{Addr: addr}, &fakeNode{}); !errors.Is(err, ErrRoutableWithoutKey) {
			t.Errorf("--http %s without a key: %v", addr, err)
		}
	}
	if _, err := Start(Config{Addr: "nonsense"}, &fakeNode{}); err == nil {
		t.Error("--http nonsense was accepted")
	}
}

// TestCloseLeavesNothing: after Close, with a client that never finished
// its request, no goroutine of the server is left.
func TestCloseLeavesNothing(t *testing.T) {
	before := runtime.NumGoroutine()
	s, err := Start(Config{Addr: "127.0.0.1:0"}, &fakeNode{})
	if err != nil {
		t.Fatal(err)
	}
	get(t, "http://"+s.Addr()+"/healthz")
	http.DefaultClient.CloseIdleConnections()
	stalled, err := net.Dial("tcp", s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer stalled.Close()
	stalled.Write([]byte("GET /healthz HTTP/1.1\r\nHost: x\r\n")) // and never the rest
	closed := time.Now()
	s.Close()
	if took := time.Since(closed); took > 3*time.Second {
		t.Errorf("Close took %v with a stalled client", took)
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines after Close, %d before", n, before)
	}
}

// TestMetricsParse: /metrics is the Prometheus text format, as the real
// parser reads it, with the node's per-worker and per-node families.
func TestMetricsParse(t *testing.T) {
	s, err := Start(Config{Addr: "127.0.0.1:0"}, &fakeNode{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	families := promtest.Families(t, "http://"+s.Addr()+"/metrics")
	for _, name := range []string{"tsys_tasks_run_total", "tsys_inlined_total", "tsys_stolen_from_total", "tsys_busy_seconds_total",
		"tsys_tasks_lent_total", "tsys_tasks_rerun_total", "tsys_backups_total", "tsys_transport_errors_total", "tsys_ready_tasks", "tsys_members", "go_goroutines"} {
		if families[name] == nil {
			t.Errorf("/metrics has no %s", name)
		}
	}
	if f := families["tsys_tasks_run_total"]; f != nil && len(f.Metric) != 2 {
		t.Errorf("tsys_tasks_run_total has %d series, want one per worker (2)", len(f.Metric))
	}
	// Two jobs share the node: one series per job, with its grant.
	if f := families["tsys_job_workers"]; f == nil || len(f.Metric) != 2 {
		t.Errorf("tsys_job_workers: %v, want a series for each of 2 jobs", f)
	} else {
		for _, m := range f.Metric {
			job := ""
			for _, l := range m.GetLabel() {
				if l.GetName() == "job_id" { // not "job", which Prometheus gives its targets
					job = l.GetValue()
				}
			}
			if want := map[string]float64{"a1": 2, "b3": 0}[job]; m.GetGauge().GetValue() != want {
				t.Errorf("tsys_job_workers{job=%q} = %v, want %v", job, m.GetGauge().GetValue(), want)
			}
		}
	}
	if f := families["tsys_jobs_running"]; f == nil || f.Metric[0].GetGauge().GetValue() != 2 {
		t.Errorf("tsys_jobs_running: %v, want 2", f)
	}
	for _, path := range []string{"/debug/pprof/", "/debug/pprof/goroutine?debug=1", "/api/node", "/api/cluster", "/"} {
		r, err := http.Get("http://" + s.Addr() + path)
		if err != nil {
			t.Fatal(err)
		}
		r.Body.Close()
		if r.StatusCode != 200 {
			t.Errorf("%s: %d", path, r.StatusCode)
		}
	}
}

// TestTokenGuardsRoutableAddresses: on a routable address a keyed node's
// endpoints need the token, as a bearer token or ?token=, except
// /healthz.
func TestTokenGuardsRoutableAddresses(t *testing.T) {
	key := []byte("0123456789abcdef0123456789abcdef")
	s, err := Start(Config{Addr: "0.0.0.0:0", Key: key}, &fakeNode{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_, port, _ := net.SplitHostPort(s.Addr())
	base := "http://127.0.0.1:" + port
	status := func(path, bearer string) int {
		req, _ := http.NewRequest("GET", base+path, nil)
		if bearer != "" {
			req.Header.Set("Authorization", "Bearer "+bearer)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	tok := Token(key)
	for path, want := range map[string]int{"/healthz": 200, "/metrics": 401, "/api/cluster": 401, "/api/stream": 401, "/": 401, "/debug/pprof/": 401} {
		if got := status(path, ""); got != want {
			t.Errorf("%s without a token: %d, want %d", path, got, want)
		}
	}
	if got := status("/metrics", tok); got != 200 {
		t.Errorf("/metrics with the bearer token: %d", got)
	}
	if got := status("/api/cluster?token="+tok, ""); got != 200 {
		t.Errorf("/api/cluster?token=: %d", got)
	}
	if got := status("/metrics", Token([]byte("another key of 16+ bytes"))); got != 401 {
		t.Errorf("/metrics with another cluster's token: %d", got)
	}
}

// TestCountersSurviveRuns: a run's counters start from zero; the totals
// /metrics reports never go down, not even when a reading within a run is
// lower than the one before, and nothing is counted twice.
func TestCountersSurviveRuns(t *testing.T) {
	var a accumulator
	steps := []struct {
		run  uint64
		v    float64
		want float64
	}{
		{1, 5, 5}, {1, 9, 9}, {1, 7, 9}, // a torn reading: kept at 9
		{1, 0, 9}, // the next run's zeroed counters, seen before its number
		{2, 2, 11}, {2, 4, 13}, {3, 4, 17},
	}
	for i, s := range steps {
		if got := a.total(s.run, "m", []string{"n"}, s.v); got != s.want {
			t.Errorf("step %d (run %d, value %v): total %v, want %v", i, s.run, s.v, got, s.want)
		}
	}
}
