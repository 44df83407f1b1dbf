package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/hashicorp/go-sockaddr"
	"github.com/tsys-go/tsys/internal/cluster"
	"github.com/tsys-go/tsys/internal/launch"
	"github.com/tsys-go/tsys/internal/net/membership"
)

// launchFlags are how a process started by a launcher (srun, mpirun, a
// Kubernetes Indexed Job) finds its place: which launcher, where rank 0
// is when the launcher does not say, and which network to use.
type launchFlags struct {
	launcher, root, network string
}

func (f *launchFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.launcher, "launcher", "auto", "what started this process, one a rank: auto (SLURM's srun, mpirun, a Kubernetes Indexed Job or TSYS_RANK, found from their variables), slurm, mpi, kubernetes, env (TSYS_RANK, TSYS_SIZE, TSYS_ROOT) or none (a process of its own)")
	fs.StringVar(&f.root, "launch-root", "", "under a launcher, where rank 0 listens when the launcher does not say (mpirun across hosts): HOST, HOST:PORT, :PORT, or a file on a path every rank shares, which rank 0 writes (default: TSYS_ROOT)")
	fs.StringVar(&f.network, "launch-network", "", "under a launcher, the network the ranks reach each other on, for hosts with several: an interface (ib0) or a CIDR (10.1.0.0/16) (default: the address of the host's name)")
}

// launched is a process's place in a launched job, resolved: where it
// listens, where rank 0 is, its name and the job's key.
type launched struct {
	*launch.Launch
	// bind is this process's gossip HOST:PORT and advertise the address
	// its peers dial; join is rank 0's gossip address (not rank 0's own).
	bind, advertise, join string
	name                  string
	key                   []byte
	// keyFrom says where the key came from, for messages.
	keyFrom string
}

// detectLaunch reads the launcher of a run or a node (nodes): nil when
// none started the process. Every error is bad usage: a variable or a
// flag to set.
func (c *command) detectLaunch(f launchFlags, nodes bool, command string) (*launch.Launch, error) {
	l, err := launch.Detect(launch.Request{Getenv: os.LookupEnv, Launcher: f.launcher, Root: f.root, Nodes: nodes,
		Program: c.name, Command: command})
	if err != nil {
		return nil, usageError{msg: err.Error()}
	}
	return l, nil
}

// resolveLaunch finds the addresses and the key of a launched process:
// its own address from its host's name (or --launch-network), rank 0's from
// the launcher's host name (or --launch-root), and the key from --key-file or
// derived from the user's secret for the job.
func resolveLaunch(l *launch.Launch, f launchFlags, keyFile string, stderr io.Writer) (*launched, error) {
	p := &launched{Launch: l}
	pick, err := networkFilter(f.network)
	if err != nil {
		return nil, usageError{msg: err.Error()}
	}
	host := l.Host
	if host == "" {
		host, _ = os.Hostname()
	}
	self := "127.0.0.1"
	if !l.OneHost || f.network != "" {
		if self, err = ownAddress(host, f.network, pick); err != nil {
			return nil, usageError{msg: err.Error()}
		}
	}
	port := 0
	if l.Rank == 0 && l.RootFile == "" && !l.Client {
		port = l.RootPort
	}
	p.bind = net.JoinHostPort(self, strconv.Itoa(port))
	p.advertise = self
	if !l.Client {
		p.name = fmt.Sprintf("rank%d@%s", l.Rank, host)
	}
	if l.Rank != 0 && l.RootFile == "" {
		addr := l.RootHost
		switch {
		case addr == "": // every rank on this host
			addr = self
		case net.ParseIP(addr) == nil:
			if addr, err = hostAddress(l.RootHost, pick, l.OneHost); err != nil {
				return nil, usageError{msg: fmt.Sprintf("rank 0's host: %v", err)}
			}
		}
		p.join = net.JoinHostPort(addr, strconv.Itoa(l.RootPort))
	}
	switch {
	case keyFile != "":
		if p.key, err = readKeyFile(keyFile, stderr); err != nil {
			return nil, err
		}
		p.keyFrom = "--key-file " + keyFile
	case l.NeedsKeyFile != "":
		return nil, Usagef("under %s, give --key-file: %s", l.Launcher, l.NeedsKeyFile)
	default:
		path, err := launch.SecretPath()
		if err != nil {
			return nil, usageError{msg: err.Error()}
		}
		secret, err := launch.Secret(path)
		if err != nil {
			return nil, usageError{msg: err.Error()}
		}
		p.key = launch.Key(secret, l.Job)
		p.keyFrom = "derived from " + path
	}
	return p, nil
}

// config is the node configuration of a launched process.
func (p *launched) config(cfg cluster.Config) cluster.Config {
	cfg.Name, cfg.Bind, cfg.Advertise, cfg.Key = p.name, p.bind, p.advertise, p.key
	if p.join != "" {
		cfg.Join = []string{p.join}
	}
	return cfg
}

// findRoot reads rank 0's address from --launch-root's file, for a rank other
// than 0: rank 0 writes it once it listens.
func (p *launched) findRoot(timeout time.Duration) error {
	if p.Rank == 0 || p.RootFile == "" {
		return nil
	}
	addr, err := readRoot(p.RootFile, p.Job, timeout)
	p.join = addr
	return err
}

// published has rank 0 write its address into --launch-root's file, if there
// is one, and returns what removes it at the end.
func (p *launched) published(node *cluster.Node) func() {
	if p.Rank != 0 || p.RootFile == "" || p.Launch.Client {
		return func() {}
	}
	if err := publishRoot(p.RootFile, p.Job, node.GossipAddr()); err != nil {
		slog.Warn("the other ranks cannot find this one", "err", err)
		return func() {}
	}
	return func() { os.Remove(p.RootFile) }
}

// startError explains why a launched process could not start its node:
// rank 0's port taken, or a failure to join rank 0 (a key that differs
// most often means the ranks derived it from different secrets).
func (p *launched) startError(err error) error {
	if p.Rank == 0 && !p.Launch.Client && errors.Is(err, syscall.EADDRINUSE) {
		return fmt.Errorf("rank 0 of %s cannot listen on %s: the port is taken, most likely by another job whose number gives the same port (%s): name another with --launch-root :PORT (or TSYS_ROOT=:PORT) on every rank: %w", p.Launcher, p.bind, p.Job, err)
	}
	if errors.Is(err, membership.ErrKeyMismatch) {
		return asUsage(fmt.Errorf("rank %d of %s could not join rank 0 at %s: %w (this rank's key %s, fingerprint %s: if the ranks' fingerprints differ, their home directories are not one shared directory; give every rank one --key-file on a shared path)",
			p.Rank, p.Launcher, p.join, err, p.keyFrom, launch.Fingerprint(p.key)))
	}
	if p.Rank == 0 && !p.Launch.Client {
		return asUsage(fmt.Errorf("rank 0 of %s could not start its node at %s: %w", p.Launcher, p.bind, err))
	}
	return asUsage(fmt.Errorf("rank %d of %s could not join rank 0 at %s: %w", p.Rank, p.Launcher, p.join, err))
}

// launchWorkers is the workers of a launched process that names none: the
// CPUs its launcher gave it, held to --workers' bound, the error saying
// where the count came from.
func (c *command) launchWorkers(l *launch.Launch) (int, error) {
	if err := c.checkWorkers(l.Workers); err != nil {
		return 0, Usagef("%s gave this rank %d CPUs, its workers unless --workers names them: %v", l.Launcher, l.Workers, err)
	}
	return l.Workers, nil
}

// flagSet reports whether the command line set flag name.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// networkFilter reads --launch-network: an interface's name or a CIDR. It
// returns the test an address passes when it is on that network (nil:
// any address).
func networkFilter(network string) (func(net.IP) bool, error) {
	if network == "" {
		return nil, nil
	}
	if _, cidr, err := net.ParseCIDR(network); err == nil {
		return cidr.Contains, nil
	}
	iface, err := net.InterfaceByName(network)
	if err != nil {
		return nil, fmt.Errorf("--launch-network %q: neither a CIDR (10.1.0.0/16) nor an interface of this host (%v)", network, err)
	}
	addrs, err := iface.Addrs()
	if err != nil {
		return nil, fmt.Errorf("--launch-network %s: %w", network, err)
	}
	var nets []*net.IPNet
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok {
			nets = append(nets, n)
		}
	}
	if len(nets) == 0 {
		return nil, fmt.Errorf("--launch-network %s: the interface has no address", network)
	}
	return func(ip net.IP) bool {
		for _, n := range nets {
			if n.Contains(ip) {
				return true
			}
		}
		return false
	}, nil
}

// ownAddress is the address this process listens on: with --launch-network,
// this host's address on that network; else its name's, or where its
// name gives none but loopback, its first private address.
func ownAddress(host, network string, pick func(net.IP) bool) (string, error) {
	if pick != nil {
		addrs, err := net.InterfaceAddrs()
		if err != nil {
			return "", err
		}
		for _, a := range addrs {
			if n, ok := a.(*net.IPNet); ok && pick(n.IP) && n.IP.To4() != nil {
				return n.IP.String(), nil
			}
		}
		for _, a := range addrs {
			if n, ok := a.(*net.IPNet); ok && pick(n.IP) {
				return n.IP.String(), nil
			}
		}
		return "", fmt.Errorf("--launch-network %s: this host has no address on it", network)
	}
	addr, err := hostAddress(host, nil, false)
	if err == nil {
		return addr, nil
	}
	// A name that resolves to loopback alone (Debian maps its host name
	// to 127.0.1.1), or not at all: the address memberlist would pick.
	if private, perr := sockaddr.GetPrivateIP(); perr == nil && private != "" {
		return private, nil
	}
	return "", fmt.Errorf("this host: %w", err)
}

// hostAddress is where a host the launcher names can be reached: an
// address its name resolves to (on the network pick accepts), else the
// address SLURM reaches its node at (NodeAddr), which a cluster may set
// where its names do not resolve. A loopback address reaches no other
// host, so it serves only where every rank is on one (oneHost).
func hostAddress(host string, pick func(net.IP) bool, oneHost bool) (string, error) {
	ips, lookupErr := net.LookupIP(host)
	var loopback string
	for _, prefer4 := range []bool{true, false} {
		for _, ip := range ips {
			switch {
			case prefer4 && ip.To4() == nil, pick != nil && !pick(ip):
			case ip.IsLoopback():
				loopback = ip.String()
			default:
				return ip.String(), nil
			}
		}
	}
	if addr := slurmNodeAddr(host); addr != "" && (pick == nil || pick(net.ParseIP(addr))) {
		return addr, nil
	}
	if loopback != "" && oneHost {
		return loopback, nil
	}
	switch {
	case lookupErr != nil:
		return "", fmt.Errorf("%s does not resolve (%v), and SLURM gives no address for it: name the network with --launch-network (an interface or a CIDR)", host, lookupErr)
	case loopback != "":
		return "", fmt.Errorf("%s resolves to %s, a loopback address, which the other hosts cannot reach: name the network with --launch-network (an interface such as eth0, or a CIDR such as 10.1.0.0/16)", host, loopback)
	default:
		return "", fmt.Errorf("%s has no address on --launch-network", host)
	}
}

// slurmNodeAddr is the address SLURM reaches node host at (its NodeAddr),
// "" outside SLURM or when it does not say: asked only when the name does
// not resolve.
func slurmNodeAddr(host string) string {
	if os.Getenv("SLURM_JOB_ID") == "" {
		return ""
	}
	out, err := exec.Command("scontrol", "-o", "show", "node", host).Output()
	if err != nil {
		return ""
	}
	for _, f := range strings.Fields(string(out)) {
		if v, ok := strings.CutPrefix(f, "NodeAddr="); ok && net.ParseIP(v) != nil {
			return v
		}
	}
	return ""
}

// publishRoot has rank 0 write its gossip address into --launch-root's file,
// with the job's name, so that a rank that reads a file an earlier job
// left waits for this one's.
func publishRoot(path, job, addr string) error {
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp"+strconv.Itoa(os.Getpid()))
	if err := os.WriteFile(tmp, []byte(job+"\n"+addr+"\n"), 0o600); err != nil {
		return fmt.Errorf("--launch-root %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("--launch-root %s: %w", path, err)
	}
	return nil
}

// rootFileMax bounds what readRoot reads of --launch-root's file, which
// holds a job's name and an address.
const rootFileMax = 4096

// readRoot waits until --launch-root's file holds this job's rank 0 address.
// A path that is no regular file (a device, a pipe, a directory) is bad
// usage at once: reading it could block past the timeout or never end.
func readRoot(path, job string, timeout time.Duration) (string, error) {
	deadline := time.Now().Add(timeout)
	for {
		if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
			return "", Usagef("--launch-root %s is not a regular file (a directory, a pipe or a device): name a file on a path every rank shares, which rank 0 writes", path)
		}
		b, err := readAtMost(path, rootFileMax)
		if err == nil {
			if j, addr, ok := strings.Cut(strings.TrimSpace(string(b)), "\n"); ok && j == job {
				return strings.TrimSpace(addr), nil
			}
		}
		if time.Now().After(deadline) {
			return "", fmt.Errorf("--launch-root %s: rank 0 did not write its address there within %v (--join-timeout): is the path shared by every rank? (%v)", path, timeout, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// readAtMost reads the first max bytes of a file.
func readAtMost(path string, max int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, max))
}
