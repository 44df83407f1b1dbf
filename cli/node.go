package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/tsys-go/tsys/inline"
	"github.com/tsys-go/tsys/internal/cliflags"
	"github.com/tsys-go/tsys/internal/cluster"
	"github.com/tsys-go/tsys/internal/monitor"
	"github.com/tsys-go/tsys/internal/schedspec"
	"github.com/tsys-go/tsys/internal/share"
)

// nodeCommand runs `tsys node`: a long-lived node that serves work to the
// cluster until it is interrupted or asked to stop.
func (c *command) nodeCommand(args []string, stdout, stderr io.Writer) error {
	fs := NewFlagSet(c.name+" node", stderr)
	cliflags.SetUsage(fs, c.name+" node [flags]", "Serves this program's tasks to a cluster until it is interrupted, drained or asked to stop;\nthe first node needs no --join.")
	var netf netFlags
	netf.register(fs, "127.0.0.1:7946")
	join := fs.String("join", "", "seed nodes HOST:PORT[,HOST:PORT...] (a HOST without a port: port 7946); empty for the first node")
	workers := fs.Int("workers", runtime.GOMAXPROCS(0), "workers")
	zone := fs.String("zone", "", "zone label, for --sched fishing:zone")
	keyFile := fs.String("key-file", "", "cluster key file (without one, the node listens on loopback only)")
	schedName := fs.String("sched", "fishing:random", schedspec.Help("scheduler, one of:"))
	shareName := fs.String("share", "fchp", "how the node shares its workers between jobs that run at once: fchp (the earliest job first, later ones on idle workers), equi (each job its share of the nodes, within its --min-nodes and --max-nodes) or exclusive (one job at a time)")
	inl := fs.String("inline", inline.Default().String(), "inlining policy: load:K, off or always")
	name := fs.String("name", "", "node name (default: random)")
	httpAddr := fs.String("http", "", "serve a dashboard at /, /metrics (Prometheus), /api/node, /api/cluster, /debug/pprof/ and /healthz at HOST:PORT; a routable address needs --key-file, and then the token "+c.name+" token prints")
	drainTimeout := fs.Duration("drain-timeout", time.Minute, "on SIGTERM or an interrupt, how long the node may take to finish the tasks it started before it leaves")
	fast := fs.Bool("fast", false, "loopback gossip timing: notice a dead node in about a second")
	level := fs.String("log-level", "info", "log level: debug, info, warn or error")
	profileKind := fs.String("profile", "", "write a profile when the node stops: cpu, mem, block, mutex or trace")
	profileDir := fs.String("profile-dir", ".", "directory for --profile output")
	var lf launchFlags
	lf.register(fs)
	var load loadFlags
	fs.IntVar(&load.cpu, "cpu", -1, "pin the node to this CPU (Linux; -1: do not pin)")
	fs.StringVar(&load.hog, "hog", "", "run competing CPU load beside the workers: F (a fraction of a core) or F:ON/OFF, e.g. 0.5 or 0.5:2s/2s")
	if err := parseFlagsOnly(fs, args); err != nil {
		return err
	}
	if err := netf.check(*join, *httpAddr, *keyFile != ""); err != nil {
		return err
	}
	if err := checkIgnored(fs, []flagRule{profileRule(*profileKind)}); err != nil {
		return err
	}
	// Started one a rank (srun tsys node), the nodes make one cluster:
	// rank 0 is the seed, on the port jobs find it at (run --join slurm).
	var lp *launched
	if *join == "" {
		l, err := c.detectLaunch(lf, true, c.name+" node")
		if err != nil {
			return err
		}
		if l != nil {
			if lp, err = resolveLaunch(l, lf, *keyFile, stderr); err != nil {
				return err
			}
			if !flagSet(fs, "workers") && l.Workers > 0 {
				if *workers, err = c.launchWorkers(l); err != nil {
					return err
				}
			}
			if *name == "" {
				*name = lp.name
			}
		}
	}
	if err := checkIgnored(fs, []flagRule{launchRule(lp != nil)}); err != nil {
		return err
	}
	if *drainTimeout <= 0 {
		return Usagef("--drain-timeout %v: want more than 0", *drainTimeout)
	}
	var lvl slog.Level
	if err := lvl.UnmarshalText([]byte(*level)); err != nil {
		return Usagef("--log-level %q: want debug, info, warn or error", *level)
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: lvl}))
	if err := c.checkWorkers(*workers); err != nil {
		return err
	}
	pol, err := schedspec.Parse(*schedName)
	if err != nil {
		return usageError{msg: err.Error()}
	}
	sharing, err := share.Parse(*shareName)
	if err != nil {
		return usageError{msg: err.Error()}
	}
	stopProfile, err := startProfile(*profileKind, *profileDir)
	if err != nil {
		return err
	}
	defer stopProfile()
	stopLoad, err := load.start(c.executable)
	defer stopLoad()
	if err != nil {
		return err
	}
	ip, err := inline.Parse(*inl)
	if err != nil {
		return usageError{msg: err.Error()}
	}
	var key []byte
	if lp != nil {
		key = lp.key
	} else if *keyFile != "" {
		if key, err = readKeyFile(*keyFile, stderr); err != nil {
			return err
		}
	} else {
		logger.Info("no --key-file: gossip and tasks are not protected, so the node listens on loopback only")
	}
	var seeds []string
	if *join != "" {
		seeds = strings.Split(*join, ",")
	}
	cfg := cluster.Config{
		Name: *name, Join: seeds, Zone: *zone, Key: key,
		Workers: *workers, Inline: ip, Policy: pol, Share: sharing, Fast: *fast, Logger: logger,
	}
	netf.apply(&cfg)
	if lp != nil {
		if err := lp.findRoot(netf.joinTimeout); err != nil {
			return err
		}
		cfg = lp.config(cfg)
	}
	node, err := cluster.Start(cfg)
	if err != nil {
		if lp != nil {
			return lp.startError(err)
		}
		return asUsage(fmt.Errorf("node: %w", err))
	}
	if lp != nil {
		defer lp.published(node)()
	}
	banner := fmt.Sprintf("%s node %s: gossip %s, tasks %s, %d workers", c.name, node.Name(), node.GossipAddr(), node.TransportAddr(), *workers)
	if *httpAddr != "" {
		srv, err := monitor.Start(monitor.Config{Addr: *httpAddr, Key: key, Logger: logger}, node)
		if err != nil {
			node.Close()
			return err
		}
		defer srv.Close()
		banner += ", http http://" + srv.Addr()
	}
	fmt.Fprintln(stdout, banner)
	return serve(node, false, *drainTimeout, logger)
}

// leave takes the node out of the cluster on a signal: it drains (hands
// back what it has not started, finishes what it has), unless the drain
// takes longer than timeout or a second signal comes, which make it leave
// at once (its lenders then run again what it held). It returns nil when
// the drain finished, and an error, which the exit status shows, when
// the node left without finishing it.
func leave(node *cluster.Node, s os.Signal, sig <-chan os.Signal, timeout time.Duration, logger *slog.Logger) error {
	logger.Info("leaving the cluster: draining first (signal again to leave at once)", "signal", s, "timeout", timeout)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	go func() {
		select {
		case <-sig:
			cancel()
		case <-ctx.Done():
		}
	}()
	_, err := node.Drain(ctx)
	switch {
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled):
		logger.Warn("leaving without finishing the drain", "err", err)
		node.Close()
		return fmt.Errorf("left the cluster without finishing the drain (the nodes that lent its tasks run them again): %w", err)
	case err != nil:
		// Drained, and nothing lost; saying goodbye failed (every peer
		// leaving at once has no one to spread it).
		logger.Info("drained; leaving was not heard by every peer", "err", err)
	}
	return nil
}
