package sim

import (
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tsys-go/tsys/inline"
	"github.com/tsys-go/tsys/internal/hog"
	"github.com/tsys-go/tsys/internal/schedspec"
)

func mustRun(t *testing.T, sched, app string, nodes, workers int, tweak func(*Model)) *Result {
	t.Helper()
	w, err := ParseWorkload(app)
	if err != nil {
		t.Fatal(err)
	}
	f, err := schedspec.Parse(sched)
	if err != nil {
		t.Fatal(err)
	}
	m := Defaults()
	m.Nodes, m.Workers = nodes, workers
	if tweak != nil {
		tweak(&m)
	}
	r, err := Run(Config{Model: m, Workload: w, Sched: f, Seed: 1})
	if err != nil {
		t.Fatalf("%s %s on %dx%d: %v", sched, app, nodes, workers, err)
	}
	return r
}

// TestEverySchedulerFinishes: every scheduler runs every workload to its
// end, on one node and on several; the work is the workload's, whoever
// ran it, and no schedule beats the lower bound.
func TestEverySchedulerFinishes(t *testing.T) {
	apps := map[string]int64{ // the tasks each tree has
		"ep:leaves=256":        511,
		"fib:n=15,leaf=5us":    1973,
		"uts:tree=T5":          0, // counted by the real generator below
		"flat:iters=300":       599,
		"ep:leaves=1,leaf=1ms": 1,
	}
	for _, sched := range []string{"local", "fishing", "fishing:load", "fishing:lifelines=1", "balance", "ratebalance"} {
		for app, tasks := range apps {
			if app == "uts:tree=T5" {
				continue
			}
			for _, nodes := range []int{1, 3} {
				r := mustRun(t, sched, app, nodes, 2, nil)
				if r.Tasks != tasks {
					t.Errorf("%s %s on %d nodes: %d tasks, want %d", sched, app, nodes, r.Tasks, tasks)
				}
				if r.Makespan < r.LowerBound {
					t.Errorf("%s %s on %d nodes: makespan %v below the lower bound %v", sched, app, nodes, r.Makespan, r.LowerBound)
				}
				if sched != "local" && nodes > 1 && tasks > 100 && r.TasksMoved == 0 {
					t.Errorf("%s %s on %d nodes: no task moved", sched, app, nodes)
				}
			}
		}
	}
}

// TestUTSTreeIsTheRealOne: the UTS workload expands the real generator's
// tree: T5's published node count.
func TestUTSTreeIsTheRealOne(t *testing.T) {
	w, _ := ParseWorkload("uts:tree=T5")
	r := mustRun(t, "fishing", "uts:tree=T5", 2, 1, nil)
	if want := w.(*UTS).Tree.Nodes; r.Tasks != want {
		t.Errorf("%d tasks, want T5's %d nodes", r.Tasks, want)
	}
}

// TestDeterministic: a seeded run is exactly repeatable, under every
// scheduler (a policy that iterated a map would not be).
func TestDeterministic(t *testing.T) {
	for _, sched := range []string{"fishing", "fishing:load", "fishing:zone", "fishing:lifelines=1", "balance", "ratebalance"} {
		zones := func(m *Model) { m.Zones = 2 }
		a := mustRun(t, sched, "ep:leaves=4096", 8, 2, zones)
		b := mustRun(t, sched, "ep:leaves=4096", 8, 2, zones)
		a.Seconds, b.Seconds = 0, 0
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: two runs differ:\n%+v\n%+v", sched, a, b)
		}
	}
}

// TestOneNodeIsNearTheBound: on one node of one worker the makespan is
// the work, nothing else.
func TestOneNodeIsTheWork(t *testing.T) {
	r := mustRun(t, "local", "ep:leaves=1024", 1, 1, nil)
	if r.Makespan != r.Work || r.Efficiency != 1 {
		t.Errorf("makespan %v, work %v, efficiency %v", r.Makespan, r.Work, r.Efficiency)
	}
}

// TestInlining: the inlining policy decides which tree nodes run as calls,
// never how much work there is. Inlining everything leaves one task (the
// root) to schedule; inlining nothing leaves only fib's own calls (the
// second child of each of its 986 inner nodes); load:K lies between.
// Every policy keeps the makespan above the lower bound, and on one
// worker equal to the work.
func TestInlining(t *testing.T) {
	const app = "fib:n=15,leaf=5us" // 1,973 tasks
	with := func(p inline.Policy) func(*Model) { return func(m *Model) { m.Inline = p } }
	all := mustRun(t, "local", app, 1, 1, with(inline.Everything()))
	none := mustRun(t, "local", app, 1, 1, with(inline.Never()))
	some := mustRun(t, "local", app, 1, 1, with(inline.LoadK(2)))
	if all.Inlined != all.Tasks-1 || none.Inlined != (none.Tasks-1)/2 || some.Inlined <= none.Inlined || some.Inlined >= all.Inlined {
		t.Errorf("inlined: always %d, off %d, load:2 %d of %d tasks", all.Inlined, none.Inlined, some.Inlined, all.Tasks)
	}
	for _, r := range []*Result{all, none, some} {
		if r.Work != none.Work || r.Tasks != none.Tasks || r.Makespan != r.Work {
			t.Errorf("%d inlined: work %v (want %v), %d tasks, makespan %v", r.Inlined, r.Work, none.Work, r.Tasks, r.Makespan)
		}
	}
	for _, sched := range []string{"fishing", "balance", "ratebalance"} {
		for _, p := range []inline.Policy{inline.Everything(), inline.Never(), inline.LoadK(1), inline.LoadK(4)} {
			r := mustRun(t, sched, app, 3, 2, with(p))
			if r.Makespan < r.LowerBound || r.Work != none.Work {
				t.Errorf("%s, inline %v: makespan %v under the bound %v, or work %v", sched, p, r.Makespan, r.LowerBound, r.Work)
			}
			if p.Mode() == inline.Always && r.TasksMoved != 0 {
				t.Errorf("%s, inline always: %d tasks moved, but only the root was ever a task", sched, r.TasksMoved)
			}
		}
	}
}

// TestSlowNodeDoesLess: a node at half speed runs fewer tasks than its
// peer under Fishing.
func TestSlowNodeDoesLess(t *testing.T) {
	r := mustRun(t, "fishing", "ep:leaves=1024", 2, 1, func(m *Model) { m.Speed = []float64{1, 0.5} })
	if r.PerNode[1].Tasks >= r.PerNode[0].Tasks {
		t.Errorf("the half-speed node ran %d tasks, the other %d", r.PerNode[1].Tasks, r.PerNode[0].Tasks)
	}
}

// TestBadInput names the parameter at fault.
func TestBadInput(t *testing.T) {
	for app, want := range map[string]string{
		"psychic":        "unknown workload",
		"ep:leaves=0":    "leaves",
		"ep:leaf=-1us":   "leaf",
		"uts:tree=T9":    "tree",
		"ep:colour=blue": "unknown option",
		"fib:n":          "KEY=VALUE",
	} {
		if _, err := ParseWorkload(app); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("--app %s: %v, want an error naming %q", app, err, want)
		}
	}
	w, _ := ParseWorkload("ep")
	for name, tweak := range map[string]func(*Model){
		"--nodes":   func(m *Model) { m.Nodes = 0 },
		"--latency": func(m *Model) { m.Latency = -time.Microsecond },
		"--speed":   func(m *Model) { m.Speed = []float64{1, 0} },
		"--zones":   func(m *Model) { m.Zones = 9 },
		"--add":     func(m *Model) { m.Joins = map[int]time.Duration{0: time.Millisecond} },
		"--drain":   func(m *Model) { m.Drains = map[int]time.Duration{9: time.Millisecond} },
		"--spawn":   func(m *Model) { m.Spawn = -time.Nanosecond },
	} {
		m := Defaults()
		tweak(&m)
		if _, err := Run(Config{Model: m, Workload: w}); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestNodeFailure: a node that dies mid-run loses its tasks; once the
// others notice, its lenders run again what they had lent it, and the job
// still ends, every leaf of the root's tree done.
func TestNodeFailure(t *testing.T) {
	for _, sched := range []string{"fishing", "fishing:lifelines=1"} {
		clean := mustRun(t, sched, "ep:leaves=4096", 4, 1, nil)
		r := mustRun(t, sched, "ep:leaves=4096", 4, 1, func(m *Model) {
			m.Fail, m.FailAt, m.Detect = 2, 20*time.Millisecond, 50*time.Millisecond
		})
		var reruns int64
		for _, n := range r.PerNode {
			reruns += n.Reruns
		}
		if reruns == 0 || r.Tasks <= clean.Tasks || r.Makespan <= clean.Makespan {
			t.Errorf("%s, with node 2 dead at 20 ms: %d reruns, %d tasks (clean %d), makespan %v (clean %v)",
				sched, reruns, r.Tasks, clean.Tasks, r.Makespan, clean.Makespan)
		}
		if r.PerNode[2].Tasks == 0 {
			t.Errorf("%s: node 2 ran nothing before it died: the test shows no loss", sched)
		}
	}
}

// TestRTCostMap: the ray tracer's tree is measured once into a cost map; a
// saved map makes runs repeat exactly, is refused for another image size,
// a malformed one is refused, saying which file, and serial= scales it to
// a measured serial time.
func TestRTCostMap(t *testing.T) {
	path := t.TempDir() + "/rt.cost"
	app := "rt:w=160,h=120,leaf=256,costmap=" + path
	a := mustRun(t, "fishing", app, 3, 1, nil) // measures and saves
	b := mustRun(t, "fishing", app, 3, 1, nil) // reads it back
	a.Seconds, b.Seconds = 0, 0
	if !reflect.DeepEqual(a, b) || a.Tasks != 255 {
		t.Errorf("runs from one saved cost map differ, or the tree is not 128 tiles of at most 256 pixels:\n%+v\n%+v", a, b)
	}
	if _, err := ParseWorkload("rt:w=320,h=120,costmap=" + path); err == nil || !strings.Contains(err.Error(), "160x120") {
		t.Errorf("a cost map of another size: %v", err)
	}
	for name, body := range map[string]string{"not JSON": "{", "no cells": `{"cell": 0}`} {
		bad := t.TempDir() + "/bad.cost"
		if err := os.WriteFile(bad, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ParseWorkload("rt:w=160,h=120,costmap=" + bad); err == nil || !strings.Contains(err.Error(), bad) || strings.Contains(err.Error(), "<nil>") {
			t.Errorf("a cost map that is %s: %v", name, err)
		}
	}
	r := mustRun(t, "local", app+",serial=500ms", 1, 1, nil)
	if d := r.Work - 500*time.Millisecond; d < -time.Millisecond || d > time.Millisecond {
		t.Errorf("serial=500ms: the work is %v", r.Work)
	}
}

// TestMessagesCostCPU: the overhead of a message is charged to its
// nodes' CPU, so balancing's reports to every peer slow a large cluster
// down, and more so the dearer a message is.
func TestMessagesCostCPU(t *testing.T) {
	cheap := mustRun(t, "balance", "ep:leaves=4096", 64, 1, func(m *Model) { m.Overhead = 0 })
	dear := mustRun(t, "balance", "ep:leaves=4096", 64, 1, func(m *Model) { m.Overhead = 20 * time.Microsecond })
	if dear.Makespan <= cheap.Makespan*11/10 {
		t.Errorf("64 nodes of balance: makespan %v with free messages, %v at 20 us each", cheap.Makespan, dear.Makespan)
	}
}

// TestReplay: a recorded tree replays with its tasks, its work and its
// critical path; a file that is not one is refused, saying why.
func TestReplay(t *testing.T) {
	dir := t.TempDir()
	// 0 (1 ms) spawns 1 (2 ms) and 2 (1 ms); 2 spawns 3 (5 ms).
	good := dir + "/good.tree"
	os.WriteFile(good, []byte(`{"app":"test","parent":[-1,0,0,2],"work_ns":[1000000,2000000,1000000,5000000]}`), 0o644)
	r := mustRun(t, "fishing", "replay:file="+good, 1, 1, nil)
	if r.Tasks != 4 || r.Work != 9*time.Millisecond || r.Span != 7*time.Millisecond || r.Makespan != 9*time.Millisecond {
		t.Errorf("replay: %d tasks, work %v, span %v, makespan %v; want 4, 9 ms, 7 ms, 9 ms", r.Tasks, r.Work, r.Span, r.Makespan)
	}
	for body, want := range map[string]string{
		`not json`:                          "does not parse",
		`{"parent":[0],"work_ns":[1]}`:      "root at 0",
		`{"parent":[-1,5],"work_ns":[1,1]}`: "parent comes before",
		`{"parent":[-1,0],"work_ns":[1]}`:   "as many work times",
	} {
		bad := dir + "/bad.tree"
		os.WriteFile(bad, []byte(body), 0o644)
		if _, err := ParseWorkload("replay:file=" + bad); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", body, err, want)
		}
	}
	if _, err := ParseWorkload("replay"); err == nil || !strings.Contains(err.Error(), "file") {
		t.Errorf("replay without a file: %v", err)
	}
}

// TestJobStart: the root reaches the other nodes one at a time, as
// BeginJob does, and starts the root task when it has reached them all;
// nodes the job has not reached yet answer requests with no task, and the
// job still runs every task once.
func TestJobStart(t *testing.T) {
	m := Defaults()
	m.Nodes, m.Overhead = 8, time.Millisecond
	if m.startAt(0) != 7*time.Millisecond || m.startAt(7) <= m.startAt(6) || m.startAt(1) <= m.Overhead {
		t.Errorf("start times: root %v, node 1 %v, node 6 %v, node 7 %v", m.startAt(0), m.startAt(1), m.startAt(6), m.startAt(7))
	}
	for _, sched := range []string{"fishing", "balance", "ratebalance"} {
		r := mustRun(t, sched, "ep:leaves=4096", 8, 1, func(m *Model) { m.Overhead = 200 * time.Microsecond })
		if r.Tasks != 8191 || r.Makespan < m.startAt(0) {
			t.Errorf("%s: %d tasks, makespan %v", sched, r.Tasks, r.Makespan)
		}
	}
}

// TestHogSlowsItsNode: a constant hog takes its share of the node's core
// for the whole run, an on/off one only in its on phases.
func TestHogSlowsItsNode(t *testing.T) {
	none := mustRun(t, "fishing", "ep:leaves=2048", 2, 1, nil)
	constant := mustRun(t, "fishing", "ep:leaves=2048", 2, 1, func(m *Model) { m.Hogs = map[int]hog.Spec{1: {Fraction: 0.5}} })
	onOff := mustRun(t, "fishing", "ep:leaves=2048", 2, 1, func(m *Model) {
		m.Hogs = map[int]hog.Spec{1: {Fraction: 0.5, On: 10 * time.Millisecond, Off: 10 * time.Millisecond}}
	})
	if !(constant.PerNode[1].Tasks < onOff.PerNode[1].Tasks && onOff.PerNode[1].Tasks < none.PerNode[1].Tasks) {
		t.Errorf("node 1's tasks: no hog %d, on/off %d, constant %d; want them falling in that order",
			none.PerNode[1].Tasks, onOff.PerNode[1].Tasks, constant.PerNode[1].Tasks)
	}
	if !(none.Makespan < onOff.Makespan && onOff.Makespan < constant.Makespan) {
		t.Errorf("makespans: no hog %v, on/off %v, constant %v", none.Makespan, onOff.Makespan, constant.Makespan)
	}
}

// TestBandwidthDelaysBigTasks: lent tasks of a megabyte on a slow link
// take longer to arrive, and the run with them takes longer.
func TestBandwidthDelaysBigTasks(t *testing.T) {
	fast := mustRun(t, "fishing", "ep:leaves=1024", 4, 1, func(m *Model) { m.TaskBytes = 1 << 20 })
	slow := mustRun(t, "fishing", "ep:leaves=1024", 4, 1, func(m *Model) { m.TaskBytes, m.Bandwidth = 1<<20, 1e8 })
	if slow.Makespan <= fast.Makespan || slow.Bytes < slow.TasksMoved<<20 {
		t.Errorf("1 MB tasks at 1 GB/s: %v; at 100 MB/s: %v (bytes %d)", fast.Makespan, slow.Makespan, slow.Bytes)
	}
}

// TestModelFile: a model file sets the fields it names, keeps the rest,
// and one that does not parse, or names a field the model has not, says so.
func TestModelFile(t *testing.T) {
	dir := t.TempDir()
	good := dir + "/model.json"
	os.WriteFile(good, []byte(`{"nodes": 16, "latency": "1ms", "speed": [1, 0.5], "hogs": {"1": "0.5:2s/2s"}, "spawn": "200ns"}`), 0o644)
	m, err := ReadModel(good, Defaults())
	if err != nil || m.Nodes != 16 || m.Latency != time.Millisecond || len(m.Speed) != 2 || m.Hogs[1].On != 2*time.Second || m.Tick != Defaults().Tick || m.Spawn != 200*time.Nanosecond {
		t.Errorf("read %+v, %v", m, err)
	}
	for body, want := range map[string]string{
		`{"nodes": `:              "does not parse",
		`{"latency": "soon"}`:     "latency",
		`{"colour": "blue"}`:      "colour",
		`{"hogs": {"x": "0.5"}}`:  "node index",
		`{"hogs": {"1": "lots"}}`: "hogs",
	} {
		bad := dir + "/bad.json"
		os.WriteFile(bad, []byte(body), 0o644)
		if _, err := ReadModel(bad, Defaults()); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", body, err, want)
		}
	}
}

// TestJoinsAndDrains: nodes that join mid-run get work, nodes that drain
// hand back what they have not started and leave early, and nothing is
// lost or run twice: every tree node runs once, the work is the static
// run's, no schedule beats the bound, and a seeded run repeats exactly.
func TestJoinsAndDrains(t *testing.T) {
	const app = "ep:leaves=8192"
	elastic := func(m *Model) {
		// Three at once: their joins are handled in node order, not a map's.
		m.Joins = map[int]time.Duration{4: 20 * time.Millisecond, 5: 20 * time.Millisecond, 6: 20 * time.Millisecond}
		m.Drains = map[int]time.Duration{2: 60 * time.Millisecond, 3: 5 * time.Millisecond}
	}
	for _, sched := range []string{"fishing", "fishing:lifelines=1", "balance", "ratebalance"} {
		static := mustRun(t, sched, app, 7, 1, nil)
		a := mustRun(t, sched, app, 7, 1, elastic)
		b := mustRun(t, sched, app, 7, 1, elastic)
		if a.Tasks != static.Tasks || a.Work != static.Work || a.Makespan < a.LowerBound {
			t.Errorf("%s: %d tasks (want %d), work %v (want %v), makespan %v under the bound %v", sched, a.Tasks, static.Tasks, a.Work, static.Work, a.Makespan, a.LowerBound)
		}
		for _, joiner := range []int{4, 5, 6} {
			if a.PerNode[joiner].Tasks == 0 {
				t.Errorf("%s: node %d joined and ran nothing", sched, joiner)
			}
		}
		if early, full := a.PerNode[3].Tasks, a.PerNode[1].Tasks; early >= full {
			t.Errorf("%s: the node that left at 5 ms ran %d tasks, a node there throughout %d", sched, early, full)
		}
		a.Seconds, b.Seconds = 0, 0
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: two seeded runs with joins and drains differ", sched)
		}
	}
}

// TestSpawnCost: Model.Spawn is paid once by each child that became a
// task, never by a call or the root. On one worker of one node the
// makespan grows by exactly Spawn for each task pushed (the tree nodes
// that were neither the root nor inlined), the work and span stay the
// workload's, and inlining with load:K, which pushes fewer, pays less
// than inlining off.
func TestSpawnCost(t *testing.T) {
	const app, spawn = "fib:n=15,leaf=5us", 300 * time.Nanosecond
	charge := func(p inline.Policy) (time.Duration, int64) {
		t.Helper()
		plain := mustRun(t, "local", app, 1, 1, func(m *Model) { m.Inline = p })
		dear := mustRun(t, "local", app, 1, 1, func(m *Model) { m.Inline, m.Spawn = p, spawn })
		pushed := dear.Tasks - 1 - dear.Inlined
		got := dear.Makespan - plain.Makespan
		if got != time.Duration(pushed)*spawn || dear.Inlined != plain.Inlined || dear.Work != plain.Work || dear.Span != plain.Span {
			t.Errorf("inline %v: makespan %v with spawn %v, %v without: %v more, want %d pushed tasks x %v; work %v and %v, span %v and %v",
				p, dear.Makespan, spawn, plain.Makespan, got, pushed, spawn, dear.Work, plain.Work, dear.Span, plain.Span)
		}
		if dear.Efficiency >= 1 {
			t.Errorf("inline %v: efficiency %v on one worker with a cost per spawn", p, dear.Efficiency)
		}
		return got, pushed
	}
	off, pushedOff := charge(inline.Never())
	if want := int64(986); pushedOff != want { // fib(15)'s inner calls, each forking one child
		t.Errorf("inline off: %d tasks pushed, want %d", pushedOff, want)
	}
	for _, k := range []int{1, 2, 4} {
		if some, _ := charge(inline.LoadK(k)); some >= off {
			t.Errorf("inline load:%d charged %v for spawns, inline off %v: want less", k, some, off)
		}
	}
	// Where tasks move, the cost rides with them. Whether a run ends later
	// depends on how the schedule shifts, so only the bound and the work
	// are checked.
	for _, sched := range []string{"fishing", "balance", "ratebalance"} {
		plain := mustRun(t, sched, app, 3, 2, nil)
		dear := mustRun(t, sched, app, 3, 2, func(m *Model) { m.Spawn = spawn })
		if dear.Makespan < dear.LowerBound || dear.Work != plain.Work || dear.Tasks != plain.Tasks {
			t.Errorf("%s: makespan %v (bound %v); work %v and %v, tasks %d and %d", sched, dear.Makespan, dear.LowerBound, dear.Work, plain.Work, dear.Tasks, plain.Tasks)
		}
	}
}
