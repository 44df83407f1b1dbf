package cli

import (
	"flag"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/tsys-go/tsys/internal/cluster"
	"github.com/tsys-go/tsys/internal/monitor"
)

// netFlags are how a node process (tsys node, or tsys run --join) sits on
// the network: where it listens, what it tells peers to dial, how long it
// tries the seeds, and how fast it declares a silent peer dead.
type netFlags struct {
	bind, advertise string
	taskPort        int
	joinTimeout     time.Duration
	probeInterval   time.Duration
	suspicionMult   int
	// acceptBuilds: serve (or, on a job's root, have every node serve)
	// jobs of another build of the program (cluster.Config.AcceptBuilds).
	acceptBuilds bool
}

func (f *netFlags) register(fs *flag.FlagSet, defaultBind string) {
	fs.StringVar(&f.bind, "bind", defaultBind, "gossip address HOST:PORT (others --join it); 0.0.0.0:PORT listens on every interface and needs --key-file")
	fs.StringVar(&f.advertise, "advertise", "", "HOST[:PORT] peers dial to reach this node, when --bind is a wildcard or behind NAT (default: the bound host, or for 0.0.0.0 the first private address)")
	fs.IntVar(&f.taskPort, "task-port", 0, "port of the task transport, on the --bind host (0: one the system picks; declare one for firewalls and containers)")
	fs.DurationVar(&f.joinTimeout, "join-timeout", 30*time.Second, "how long to keep trying --join seeds that do not answer (seeds often start together), and to wait for the nodes a run needs to join")
	fs.DurationVar(&f.probeInterval, "probe-interval", 0, "failure detection: how often each peer is probed (default 1s; --fast: 200ms); shorter notices a crash sooner but may declare a busy node dead")
	fs.BoolVar(&f.acceptBuilds, "accept-builds", false, "serve jobs of another build of this program (on a job's root: have every node serve this one), each logged as a warning: for builds you know compute alike; a task whose types differ is refused all the same (default: a node of another build refuses the job)")
	fs.IntVar(&f.suspicionMult, "suspicion-mult", 0, "failure detection: a peer that fails its probes is suspected for MULT x max(1, log10(nodes)) probe intervals, then declared dead unless it answers; with the wait for its probe, dead within 2 x (nodes-1) + that many intervals, longer on a loaded or partly cut-off cluster (default 4; --fast: 2)")
}

// check is bad usage in the network flags, with the --join seeds and the
// --http address that go with them, for a node with a cluster key
// (keyed) or without: found when the flags are read, before anything
// starts, rather than when the node does.
func (f *netFlags) check(join, http string, keyed bool) error {
	switch {
	case f.taskPort < 0 || f.taskPort > 65535:
		return Usagef("--task-port %d: want a port from 0 (any) to 65535", f.taskPort)
	case f.joinTimeout <= 0:
		return Usagef("--join-timeout %v: want more than 0", f.joinTimeout)
	case f.probeInterval < 0:
		return Usagef("--probe-interval %v: want more than 0 (0: the default)", f.probeInterval)
	case f.suspicionMult < 0:
		return Usagef("--suspicion-mult %d: want 1 or more (0: the default)", f.suspicionMult)
	}
	if err := checkHostPort("--bind", f.bind, 0); err != nil {
		return err
	}
	if err := checkKeyless("--bind", f.bind, keyed); err != nil {
		return err
	}
	if f.advertise != "" {
		if err := checkHostMaybePort("--advertise", f.advertise); err != nil {
			return err
		}
	}
	if join != "" {
		// A seed without a port is dialled on the default gossip port
		// (membership.DefaultPort), never on this node's own.
		for _, seed := range strings.Split(join, ",") {
			if err := checkHostMaybePort("--join", seed); err != nil {
				return err
			}
		}
	}
	if http != "" {
		if err := checkHostPort("--http", http, 0); err != nil {
			return err
		}
		if err := monitor.CheckAddr(http, keyed); err != nil {
			return usageError{msg: err.Error()}
		}
	}
	return nil
}

// checkKeyless is bad usage when a process without a cluster key (not
// keyed) would listen at addr, HOST:PORT, beyond this machine: on every
// interface (no host, 0.0.0.0, ::) or on an address of another
// interface. A host name is left to the listener, which refuses it once
// it knows what the name is bound to.
func checkKeyless(flagName, addr string, keyed bool) error {
	host, port, _ := net.SplitHostPort(addr)
	ip := net.ParseIP(host)
	if keyed || (host != "" && (ip == nil || ip.IsLoopback())) {
		return nil
	}
	return Usagef("%s %s: listening beyond this machine needs a cluster key, or anyone who reaches the port could join the cluster and run tasks on it: add --key-file FILE (the same file on every node; make one: head -c 32 /dev/urandom | base64 > FILE), or listen on loopback, %s 127.0.0.1:%s",
		flagName, addr, flagName, port)
}

// checkHostMaybePort is bad usage unless addr is HOST, or HOST:PORT with
// a port from 1 to 65535.
func checkHostMaybePort(flagName, addr string) error {
	if _, _, err := net.SplitHostPort(addr); err == nil {
		return checkHostPort(flagName, addr, 1)
	}
	if addr == "" || (strings.Contains(addr, ":") && net.ParseIP(addr) == nil) {
		return Usagef("%s %q: want HOST or HOST:PORT, e.g. 10.0.0.1:7946", flagName, addr)
	}
	return nil
}

// checkHostPort is bad usage unless addr is HOST:PORT with a port from
// least to 65535.
func checkHostPort(flagName, addr string, least int) error {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return Usagef("%s %q: want HOST:PORT, e.g. 10.0.0.1:7946", flagName, addr)
	}
	if p, err := strconv.Atoi(port); err != nil || p < least || p > 65535 {
		return Usagef("%s %q: want a port from %d to 65535", flagName, addr, least)
	}
	return nil
}

// apply sets the network part of a node's configuration, once check has
// passed.
func (f *netFlags) apply(c *cluster.Config) {
	c.Bind, c.Advertise, c.TransportPort = f.bind, f.advertise, f.taskPort
	c.JoinTimeout, c.ProbeInterval, c.SuspicionMult = f.joinTimeout, f.probeInterval, f.suspicionMult
	c.AcceptBuilds = f.acceptBuilds
}
