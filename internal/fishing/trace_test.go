package fishing

import (
	"crypto/sha256"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tsys-go/tsys/internal/clusterpolicy"
	"github.com/tsys-go/tsys/internal/xorshift"
)

// The policy's behaviour, bit for bit: TestTraceGolden feeds policies of
// random parameters long random sequences of every event the engines
// send, records everything the policy says back (the actions, the
// advice, when it is next due, its counters), and compares a digest of
// each sequence with testdata/trace.golden. A change that must not alter
// the policy's behaviour (moving code between types and files) passes it
// unchanged; a change meant to alter it regenerates the file, in the
// same commit:
//
//	go test ./internal/fishing -run TestTraceGolden -update-trace
//
// To see where two versions part, write both versions' traces with
// -trace-dir DIR and diff them.
var (
	updateTrace = flag.Bool("update-trace", false, "rewrite testdata/trace.golden from the policy as it is")
	traceDir    = flag.String("trace-dir", "", "write each sequence's trace to this folder")
)

const traceGolden = "testdata/trace.golden"

// traceSeeds and traceEvents size the sequences: every parameter takes
// several values and every event meets most states of the policy.
const (
	traceSeeds  = 120
	traceEvents = 800
)

func TestTraceGolden(t *testing.T) {
	var got strings.Builder
	for seed := range uint64(traceSeeds) {
		h := sha256.New()
		w := io.Writer(h)
		if *traceDir != "" {
			f, err := os.Create(filepath.Join(*traceDir, fmt.Sprintf("trace-%03d.txt", seed)))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			w = io.MultiWriter(h, f)
		}
		p := traceRun(w, seed)
		fmt.Fprintf(&got, "%d %x %+v\n", seed, h.Sum(nil), p)
	}
	if *updateTrace {
		if err := os.WriteFile(traceGolden, []byte(got.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(traceGolden)
	if err != nil {
		t.Fatalf("%v (go test -run TestTraceGolden -update-trace writes it)", err)
	}
	gl, wl := strings.Split(got.String(), "\n"), strings.Split(string(want), "\n")
	if len(gl) != len(wl) {
		t.Fatalf("%d sequences, %s has %d", len(gl)-1, traceGolden, len(wl)-1)
	}
	for i := range gl {
		if gl[i] != wl[i] {
			t.Errorf("sequence %d behaves differently:\n got  %s\n want %s", i, gl[i], wl[i])
		}
	}
}

// traceRun feeds one policy of parameters drawn from seed traceEvents
// events, writes what it says back to w, and returns the parameters.
func traceRun(w io.Writer, seed uint64) Params {
	rng := xorshift.Seed(seed + 1)
	pick := func(ds ...time.Duration) time.Duration { return ds[rng.Below(len(ds))] }
	ms, us := time.Millisecond, time.Microsecond
	p := Params{
		Victim:            Victim(rng.Below(3)),
		MaxInFlight:       max(0, rng.Below(8)-3),
		TasksPerAnswer:    rng.Below(4),
		MaxTasksPerAnswer: rng.Below(17),
		QuickReturn:       pick(0, 500*us, 2*ms, 8*ms, 50*ms),
		RetryBackoff:      pick(0, -1, 100*us, 2*ms),
		MaxBackoff:        pick(0, ms, 40*ms),
		IdleBackoff:       pick(0, -1, 50*ms, 2*time.Second),
		MinReady:          rng.Below(4),
		ReplyTimeout:      pick(0, 5*ms, 200*ms),
		Expose:            rng.Below(40) - 5,
		DemandHold:        pick(0, ms, 5*ms),
		DeferFor:          pick(0, -1, 500*us, 5*ms),
		LowWater:          max(0, rng.Below(10)-4),
		Lend:              []Lending{LendHalf, LendAdaptive, LendAdaptive}[rng.Below(3)],
		Lifelines:         []int{0, -1, 1, 2, 5}[rng.Below(5)],
	}
	// From 2 to 40 peers, so that the default count in flight ranges
	// from 1 to 6; and answers that bring tasks from nearly never to
	// nearly always, so that it shrinks with them too.
	names := []clusterpolicy.NodeID{"self"}
	for i := range 2 + rng.Below(39) {
		names = append(names, clusterpolicy.NodeID(fmt.Sprintf("p%d", i)))
	}
	withTasks := []int{2, 20, 60, 97}[rng.Below(4)]
	zones := []string{"a", "b", "c"}
	s := New("self", "a", p)
	fmt.Fprintf(w, "%s %+v\n", s.Name(), s.Params())
	now := epoch
	var asked []clusterpolicy.NodeID // Fish and Lifeline actions not yet answered
	load := func() clusterpolicy.Load {
		workers := rng.Below(5)
		return clusterpolicy.Load{Workers: workers, Idle: rng.Below(workers + 1), Ready: rng.Below(3) * rng.Below(12)}
	}
	// The node's own load changes now and then, and is often that of a
	// node whose workers all wait, so that backoffs grow past MaxBackoff.
	self := load()
	selfLoad := func() clusterpolicy.Load {
		switch rng.Below(8) {
		case 0:
			self = load()
		case 1:
			w := 1 + rng.Below(4)
			self = clusterpolicy.Load{Workers: w, Idle: w}
		}
		return self
	}
	// Half the sequences move on a grid of 250 us, so that times meet
	// the parameters' bounds exactly.
	grid := time.Duration(1)
	if rng.Below(2) == 0 {
		grid = 250 * us
	}
	for i := range traceEvents {
		var d time.Duration
		switch r := rng.Below(40); {
		case r < 8:
		case r < 20:
			d = time.Duration(rng.Below(200)) * us
		case r < 34:
			d = time.Duration(rng.Below(6000)) * us
		case r < 38:
			d = time.Duration(rng.Below(60)) * ms
		default:
			d = time.Duration(rng.Below(1500)) * ms
		}
		now = now.Add(d.Round(grid))
		from := names[1+rng.Below(len(names)-1)]
		var ev string
		var as []clusterpolicy.Action
		switch rng.Below(17) {
		case 0, 1, 2:
			ev = "hungry"
			as = s.Hungry(now)
		case 3, 4:
			want, l := rng.Below(11), selfLoad()
			ev = fmt.Sprintf("request %s %d %+v", from, want, l)
			as = []clusterpolicy.Action{s.StealRequest(now, from, want, l)}
		case 5:
			ready := rng.Below(7)
			ev = fmt.Sprintf("pushed %d", ready)
			as = s.Pushed(now, ready)
		case 6, 7, 8:
			if len(asked) > 0 && rng.Below(8) > 0 {
				j := rng.Below(len(asked))
				from = asked[j]
				asked = append(asked[:j], asked[j+1:]...)
			}
			n := 0
			if rng.Below(100) < withTasks {
				n = 1 + rng.Below(8)
			}
			ev = fmt.Sprintf("reply %s %d", from, n)
			as = s.StealReply(now, from, n)
		case 9:
			l := load()
			ev = fmt.Sprintf("report %s %+v", from, l)
			as = s.LoadReport(now, from, l)
		case 10, 11:
			e := clusterpolicy.MemberEvent{Node: names[rng.Below(len(names))], Zone: zones[rng.Below(len(zones))]}
			switch rng.Below(5) {
			case 0, 1, 2:
				e.Joined = true
			case 3:
				e.Leaving = true
			}
			ev = fmt.Sprintf("member %+v", e)
			as = s.Membership(now, e)
		case 12:
			ev = "job"
			as = s.JobStarted(now)
		case 13:
			want, l := rng.Below(11), selfLoad()
			ev = fmt.Sprintf("lifeline %s %d %+v", from, want, l)
			as = []clusterpolicy.Action{s.LifelineRequest(now, from, want, l)}
		default:
			l := selfLoad()
			ev = fmt.Sprintf("tick %+v", l)
			as = s.Tick(now, l)
		}
		for _, a := range as {
			if a.Kind == clusterpolicy.Fish || a.Kind == clusterpolicy.Lifeline {
				asked = append(asked, a.Node)
			}
		}
		l := selfLoad()
		tasks, dry := s.PrefetchStats()
		fmt.Fprintf(w, "%d %v %s: %+v advice %+v due(%+v) %v stats %+v prefetch %d %d\n",
			i, now.Sub(epoch), ev, as, s.Advice(), l, s.NextDue(now, l).Sub(epoch), s.Stats(), tasks, dry)
	}
	return p
}
