package cli

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/tsys-go/tsys/internal/cluster"
	"github.com/tsys-go/tsys/internal/monitor"
	"github.com/tsys-go/tsys/internal/report"
	"github.com/tsys-go/tsys/internal/sched"
	"github.com/tsys-go/tsys/tsys"
)

// runCluster runs a job on several nodes: with --nodes N it starts N-1 node
// processes on loopback and stops them afterwards; with --join it joins an
// existing cluster for the run.
func runCluster(ctx context.Context, cfg *runConfig, rep *report.Report, stderr io.Writer) (res Result, runErr error) {
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	var join []string
	if cfg.common.join != "" {
		join = strings.Split(cfg.common.join, ",")
	}
	ncfg := cluster.Config{
		Join: join, Key: cfg.key, Workers: cfg.common.workers, Inline: cfg.inline,
		Policy: cfg.policy, Fast: cfg.common.nodes > 1 || allLoopback(join), Logger: logger,
		Client: true,
	}
	cfg.common.net.apply(&ncfg)
	if cfg.launch != nil {
		ncfg = cfg.launch.config(ncfg)
		ncfg.Fast = allLoopback([]string{cfg.launch.bind})
	}
	node, err := cluster.Start(ncfg)
	if err != nil {
		if cfg.launch != nil {
			return Result{}, cfg.launch.startError(err)
		}
		return Result{}, asUsage(err)
	}
	defer node.Close()
	if cfg.root() {
		defer cfg.launch.published(node)()
		// Before the node closes: the ranks hear how the job ended,
		// checked, and end with its status.
		defer func() {
			err := runErr
			if err == nil {
				if _, verr := cfg.verify(res); verr != nil {
					err = fmt.Errorf("%s: wrong answer: %w", cfg.app.Name, verr)
				}
			}
			cfg.dismissRanks(node, err)
		}()
	}
	if cfg.common.http != "" {
		srv, err := monitor.Start(monitor.Config{Addr: cfg.common.http, Key: cfg.key, Logger: logger}, node)
		if err != nil {
			return Result{}, err
		}
		defer srv.Close()
		fmt.Fprintf(stderr, "tsys: dashboard at http://%s/\n", srv.Addr())
	}

	want := 2 // with --join: this node and at least one other
	if !cfg.clustered() {
		want = 1 // --http alone
	}
	if cfg.root() {
		want = cfg.launch.Size
	}
	if cfg.common.nodes > 1 {
		want = cfg.common.nodes
		children, err := startNodes(node.GossipAddr(), cfg, stderr)
		defer stopNodes(children)
		if err != nil {
			return Result{}, err
		}
		if err := waitMembers(ctx, node, want, children, cfg.common.net.joinTimeout); err != nil {
			return Result{}, err
		}
	} else if err := waitMembers(ctx, node, want, nil, cfg.common.net.joinTimeout); err != nil {
		return Result{}, err
	}

	// The wall time includes starting the job across the nodes, but not a
	// wait for the least nodes it asked for (waited_seconds).
	start := time.Now()
	if cfg.root() {
		l := cfg.launch
		rep.Launch = &report.Launch{Launcher: l.Launcher, Ranks: l.Size, Job: l.Job,
			ReadySeconds: start.Sub(processStart).Seconds(), BeganUnixNs: start.UnixNano()}
	}
	job, err := node.BeginJob(cluster.JobOptions{MeasureWorkSpan: cfg.common.workspan, TimelineCap: cfg.timelineCap(),
		MinNodes: cfg.common.minNodes, MaxNodes: cfg.common.maxNodes})
	if err != nil {
		return Result{}, err
	}
	waited, err := node.AwaitNodes(ctx, job, func(have, serving int) {
		why := "the others serve earlier jobs; it runs when they give way"
		if serving < cfg.common.minNodes {
			why = fmt.Sprintf("the cluster has only %d nodes that serve jobs: start more (%s node --join %s)", serving, cfg.cmd.name, cfg.common.join)
		}
		fmt.Fprintf(stderr, "tsys: waiting for the cluster to give the job %d nodes (it has %d; %s; Ctrl-C gives up)\n", cfg.common.minNodes, have, why)
	})
	if err != nil {
		node.EndJob(job)
		return Result{}, err
	}
	if waited > 0 {
		rep.WaitedSeconds = waited.Seconds()
		start = start.Add(waited)
	}
	waiting := sayWhatItWaitsFor(ctx, job.Waiting)
	stopStatus := cfg.liveStatus(stderr, clusterSample(ctx, node))
	var st tsys.Stats
	res, st, runErr = cfg.job.Run(ctx, (*tsys.Runtime)(node.Runtime()))
	stopStatus()
	runErr = waiting(runErr)
	rep.WallSeconds = time.Since(start).Seconds()
	reports := append([]cluster.NodeReport{node.Own(sched.Stats(st))}, node.EndJob(job)...)
	rep.Nodes = len(reports)
	rep.Stats = cluster.JobStats{}
	for _, r := range reports {
		rep.Stats.Add(r.Stats)
		rep.PerNode = append(rep.PerNode, r)
	}
	if cfg.common.timeline != "" {
		parts := append([]report.TracePart{{Data: node.Runtime().Main().View().TimelineData(node.Name())}}, job.Timelines...)
		if len(parts) < rep.Nodes {
			fmt.Fprintf(stderr, "tsys: the timeline has %d of the %d nodes: the others' did not arrive\n", len(parts), rep.Nodes)
		}
		if err := writeTimeline(cfg.common.timeline, cfg.cmd.name+" "+cfg.app.Name, parts, stderr); err != nil && runErr == nil {
			runErr = err
		}
	}
	if cfg.common.workspan {
		rep.WorkSpan = report.NewWorkSpan(time.Duration(rep.Stats.WorkNanos), node.Runtime().Main().View().Span(), rep.Nodes*cfg.common.workers, rep.WallSeconds)
	}
	return res, runErr
}

// nodeProfileDir is where node i of a --nodes run writes its --profile:
// a folder of its own under --profile-dir, node-0 being this process.
func nodeProfileDir(cfg *runConfig, i int) string {
	return filepath.Join(cfg.common.profileDir, fmt.Sprintf("node-%d", i))
}

// child is a node process started by --nodes.
type child struct {
	cmd  *exec.Cmd
	done chan struct{} // closed when the process has exited
	err  error         // its exit status, once done
}

// startNodes starts n-1 `tsys node` processes that join seed.
func startNodes(seed string, cfg *runConfig, stderr io.Writer) ([]*child, error) {
	exe, err := cfg.cmd.executable()
	if err != nil {
		return nil, fmt.Errorf("finding this program to start nodes: %w", err)
	}
	var children []*child
	for i := 1; i < cfg.common.nodes; i++ {
		args := []string{"node", "--bind", "127.0.0.1:0", "--join", seed,
			"--workers", strconv.Itoa(cfg.common.workers), "--sched", cfg.common.sched,
			"--inline", cfg.inline.String(), "--fast", "--log-level", "warn"}
		if cfg.common.keyFile != "" {
			args = append(args, "--key-file", cfg.common.keyFile)
		}
		args = append(args, cfg.loads[i].args()...)
		if cfg.common.profile != "" {
			args = append(args, "--profile", cfg.common.profile, "--profile-dir", nodeProfileDir(cfg, i))
		}
		c := &child{cmd: exec.Command(exe, args...), done: make(chan struct{})}
		c.cmd.Stderr = stderr
		c.cmd.SysProcAttr = childAttr()
		if err := c.cmd.Start(); err != nil {
			return children, fmt.Errorf("starting node %d: %w", i, err)
		}
		go func() {
			c.err = c.cmd.Wait()
			close(c.done)
		}()
		children = append(children, c)
	}
	return children, nil
}

// waitMembers waits until the cluster has want members that this node can
// reach: memberlist lists a member before its metadata (the transport
// address) has been handled, and a job begun in between would leave it
// out.
// The wait is bounded by --join-timeout, like the join itself: a user who
// asked for 3 s does not wait 30.
func waitMembers(ctx context.Context, node *cluster.Node, want int, children []*child, timeout time.Duration) error {
	deadline := time.After(timeout)
	for node.Reachable()+1 < want {
		for _, c := range children {
			select {
			case <-c.done:
				return fmt.Errorf("a node process stopped before the run began: %v", c.err)
			default:
			}
		}
		select {
		case <-deadline:
			return fmt.Errorf("only %d of %d nodes joined within %v (--join-timeout)", len(node.Members()), want, timeout)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
	return nil
}

// stopNodes asks the node processes to leave and waits for them.
func stopNodes(children []*child) {
	for _, c := range children {
		c.cmd.Process.Signal(syscall.SIGTERM)
	}
	for _, c := range children {
		select {
		case <-c.done:
		case <-time.After(5 * time.Second):
			c.cmd.Process.Kill()
			<-c.done
		}
	}
}

// allLoopback reports whether every seed is on this machine: then the
// cluster is a local one, and fast gossip timing suits it.
func allLoopback(addrs []string) bool {
	for _, a := range addrs {
		host, _, err := net.SplitHostPort(a)
		if err != nil {
			host = strings.Trim(a, "[]") // a seed without a port
		}
		ip := net.ParseIP(host)
		if host != "localhost" && (ip == nil || !ip.IsLoopback()) {
			return false
		}
	}
	return len(addrs) > 0
}
