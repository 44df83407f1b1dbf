package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tsys-go/tsys/internal/proctest"
)

var (
	chaosRuns = flag.Int("chaos.runs", 0, "TestChaos: make this many random runs (a soak) instead of its fixed plan")
	chaosSeed = flag.Uint64("chaos.seed", 0, "TestChaos: the seed of its random choices (0: from the clock, logged)")
	chaosOut  = flag.String("chaos.out", "", "TestChaos: append one CSV line per run to this file")
)

// A chaos run disturbs one node of a 3-node job for 0.5 to 8 s at a random
// moment: it stops the process (SIGSTOP, then SIGCONT), the way a GC pause,
// a swapped-out process or a frozen VM stops a node that is alive; or it
// starves it of CPU with hogs pinned to its core.
type disturbance struct {
	starve bool
	victim int // 0 the root (the tsys run process), 1 and 2 the serving nodes
	at     time.Duration
	length time.Duration
}

func (d disturbance) String() string {
	what := "stop"
	if d.starve {
		what = "starve"
	}
	return fmt.Sprintf("%s node %d at %v for %v", what, d.victim, d.at.Round(time.Millisecond), d.length.Round(time.Millisecond))
}

// chaosApps are the jobs of the chaos test: even work in big pieces (EP),
// an unbalanced tree of tiny tasks (UTS) and results that carry images
// (RT).
var chaosApps = [][]string{
	{"ep", "--class", "A"},
	{"uts", "--tree", "T1L"},
	{"rt"},
}

// chaosCluster is two serving nodes, each pinned to a CPU of its own, and
// the flags of the root that joins them, under one failure detection.
type chaosCluster struct {
	nodes    []*proctest.Node
	cpus     []int
	rootArgs []string
	name     string
}

func startChaosCluster(t *testing.T, fast bool) *chaosCluster {
	t.Helper()
	c := &chaosCluster{name: "default detection"}
	// A run has no --fast; these are its timings.
	var detection, nodeDetection []string
	if fast {
		c.name = "fast detection"
		detection = []string{"--probe-interval", "200ms", "--suspicion-mult", "2"}
		nodeDetection = []string{"--fast"}
	}
	for i := range 2 {
		args := []string{"node", "--bind", "127.0.0.1:0", "--workers", "1", "--cpu", fmt.Sprint(i)}
		args = append(args, nodeDetection...)
		if i > 0 {
			args = append(args, "--join", c.nodes[0].Gossip)
		}
		n, err := proctest.StartNode(t, exec.Command(tsysBin, args...))
		if err != nil {
			t.Fatal(err)
		}
		c.nodes = append(c.nodes, n)
		c.cpus = append(c.cpus, i)
	}
	c.rootArgs = append([]string{"--workers", "1", "--join", c.nodes[0].Gossip, "--timeout", "3m"}, detection...)
	return c
}

// run runs app as a job of the cluster, disturbed by d (nil: not), and
// returns its report, wall time and stderr.
func (c *chaosCluster) run(t *testing.T, app []string, d *disturbance) (map[string]any, time.Duration, string) {
	t.Helper()
	args := append(append([]string{"run"}, app...), c.rootArgs...)
	args = append(args, "--json")
	if app[0] == "rt" {
		args = append(args, "-o", filepath.Join(t.TempDir(), "rt.png"))
	}
	cmd := exec.Command(tsysBin, args...)
	var stdout, stderr proctest.LockedBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	if d != nil {
		err = c.disturb(t, cmd.Process.Pid, *d, done)
	}
	switch {
	case errors.Is(err, errEndedEarly):
		err = nil
	case err == nil:
		err = <-done
	}
	wall := time.Since(start)
	if err != nil {
		t.Fatalf("%v (%v): %v\n%s", app, d, err, stderr.String())
	}
	var obj map[string]any
	if err := json.Unmarshal([]byte(stdout.String()), &obj); err != nil {
		t.Fatalf("%v: %v: %s", app, err, stdout.String())
	}
	return obj, wall, stderr.String()
}

// disturb carries out d on the job whose root is pid, unless the job ends
// first (its end is then returned, and done is spent).
func (c *chaosCluster) disturb(t *testing.T, root int, d disturbance, done chan error) error {
	select {
	case err := <-done:
		return errOrEnded(err)
	case <-time.After(d.at):
	}
	pid := root
	if d.victim > 0 {
		pid = c.nodes[d.victim-1].Cmd.Process.Pid
	}
	var stop func()
	if d.starve {
		cpu := fmt.Sprint(c.cpus[max(d.victim-1, 0)])
		var hogs []*exec.Cmd
		for range 4 {
			h := exec.Command(tsysBin, "hog", "--cpu", cpu, "1")
			if err := h.Start(); err != nil {
				t.Fatal(err)
			}
			hogs = append(hogs, h)
		}
		var once sync.Once
		stop = func() {
			once.Do(func() {
				for _, h := range hogs {
					h.Process.Kill()
					h.Wait()
				}
			})
		}
		t.Cleanup(stop) // a run that fails mid-way leaves no hog behind
	} else {
		if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
			t.Fatal(err)
		}
		stop = func() { syscall.Kill(pid, syscall.SIGCONT) }
		t.Cleanup(stop) // nor a stopped node
	}
	select {
	case err := <-done: // a stopped root cannot end; a starved node's job may
		stop()
		return errOrEnded(err)
	case <-time.After(d.length):
		stop()
	}
	return nil
}

// errOrEnded passes on the end of a job that ended before its disturbance
// was over: a failure, or a sentinel that the caller reads as its end.
func errOrEnded(err error) error {
	if err != nil {
		return err
	}
	return errEndedEarly
}

var errEndedEarly = errors.New("ended before its disturbance was over")

// TestChaos: jobs on three nodes whose nodes (the root among them) stop
// or starve for 0.5 to 8 s at a random moment, under fast and default
// failure detection, give their verified answers; none takes longer than
// three times its undisturbed run plus the disturbance (a stopped root
// cannot end its job while it is stopped); no node drops a live job; a
// late result is counted only for a task run again; and afterwards the
// three nodes serve the next job together. -chaos.runs N repeats random
// runs as a soak (bench/chaos.sh), -chaos.out appends a CSV line per run.
func TestChaos(t *testing.T) {
	seed := *chaosSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (-chaos.seed to repeat)", seed)
	r := rand.New(rand.NewPCG(seed, 24))
	var out *os.File
	if *chaosOut != "" {
		var err error
		if out, err = os.OpenFile(*chaosOut, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644); err != nil {
			t.Fatal(err)
		}
		defer out.Close()
	}
	type planned struct {
		fast bool
		app  int
		d    disturbance
	}
	draw := func(fast bool, app int, starve bool, base time.Duration) planned {
		d := disturbance{starve: starve, victim: r.IntN(3),
			at:     time.Duration(r.Float64() * 0.7 * float64(base)),
			length: 500*time.Millisecond + time.Duration(r.Float64()*float64(7500*time.Millisecond))}
		if starve && d.victim == 0 {
			d.victim = 1 + r.IntN(2) // hogs starve a pinned node
		}
		return planned{fast, app, d}
	}
	for _, fast := range []bool{true, false} {
		c := startChaosCluster(t, fast)
		base := map[int]time.Duration{}
		for i, app := range chaosApps {
			obj, wall, _ := c.run(t, app, nil)
			if obj["verified"] != true {
				t.Fatalf("%s, %v undisturbed: not verified: %v", c.name, app, obj["result"])
			}
			base[i] = wall
		}
		var plan []planned
		if *chaosRuns > 0 {
			for range (*chaosRuns + 1) / 2 {
				app := r.IntN(len(chaosApps))
				plan = append(plan, draw(fast, app, r.IntN(4) == 0, base[app]))
			}
		} else {
			for app := range chaosApps {
				plan = append(plan, draw(fast, app, app == 2, base[app]))
			}
		}
		for _, p := range plan {
			app := chaosApps[p.app]
			var logged []int
			for _, n := range c.nodes {
				logged = append(logged, len(n.Stderr.String()))
			}
			obj, wall, stderr := c.run(t, app, &p.d)
			bound := 3*base[p.app] + p.d.length
			rerun, late, backups := proctest.Stat(obj, "tasks_rerun"), proctest.Stat(obj, "late_results"), proctest.Stat(obj, "backups")
			t.Logf("%s, %v, %v: %.2f s (undisturbed %.2f s), %d nodes reported, %v re-run, %v backed up, %v late", c.name, app, p.d,
				wall.Seconds(), base[p.app].Seconds(), len(proctest.PerNode(obj)), rerun, backups, late)
			if out != nil {
				fmt.Fprintf(out, "%s,%s,%s,%d,%.3f,%.3f,%.3f,%.3f,%d,%v,%v,%v\n", c.name, app[0], map[bool]string{true: "starve", false: "stop"}[p.d.starve],
					p.d.victim, p.d.at.Seconds(), p.d.length.Seconds(), wall.Seconds(), base[p.app].Seconds(), len(proctest.PerNode(obj)), rerun, late, obj["verified"])
			}
			if obj["verified"] != true {
				t.Errorf("%s, %v, %v: wrong answer %v", c.name, app, p.d, obj["result"])
			}
			if wall > bound {
				t.Errorf("%s, %v, %v: took %v, over three times its undisturbed %v plus the disturbance", c.name, app, p.d, wall.Round(time.Millisecond), base[p.app].Round(time.Millisecond))
			}
			// A late result is one of a task run again here, or backed
			// up, before it came.
			if late > rerun+backups {
				t.Errorf("%s, %v, %v: %v late results but only %v tasks run again and %v backed up", c.name, app, p.d, late, rerun, backups)
			}
			logs := stderr
			for i, n := range c.nodes {
				logs += n.Stderr.String()[logged[i]:]
			}
			// A node may drop an earlier job whose end it missed (it was
			// stopped then) when that job's root exits: not this one.
			root, _ := proctest.PerNode(obj)[0]["node"].(string)
			for _, line := range strings.Split(logs, "\n") {
				if strings.Contains(line, "dropping the job") && strings.Contains(line, "root="+root) {
					t.Errorf("%s, %v, %v: a node dropped the live job: %s\n%s", c.name, app, p.d, line, logs)
				}
			}
		}
		// Whatever happened, the cluster serves the next job whole.
		obj, _, stderr := c.run(t, chaosApps[0], nil)
		if n := len(proctest.PerNode(obj)); obj["verified"] != true || n != 3 {
			t.Errorf("%s: the job after the disturbances: verified %v, %d of 3 nodes reported\n%s", c.name, obj["verified"], n, stderr)
		}
	}
}
