package slurmtest

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tsys-go/tsys/internal/netnstest"
)

// Cluster is a running SLURM cluster.
type Cluster struct {
	// Dir holds its configuration, state and logs.
	Dir string
	// Conf is its slurm.conf, which SLURM's commands read from SLURM_CONF.
	Conf string
	// Nodes are the node names (n1, n2, ...) and Addrs their addresses.
	Nodes, Addrs []string
	// Namespaces are the nodes' network namespaces, nil where the
	// machine cannot make them (every node on 127.0.0.1).
	Namespaces []string
	// Env is what SLURM's commands and the processes they start need:
	// SLURM_CONF, and a configuration directory of the test's own
	// (XDG_CONFIG_HOME), where tsys keeps the launch secret.
	Env   []string
	hosts string
	procs []*exec.Cmd
}

// Cannot skips the test, saying why SLURM cannot run here; where
// TSYS_REQUIRE_SLURM is set it fails it instead.
func Cannot(t testing.TB, format string, args ...any) {
	t.Helper()
	if os.Getenv("TSYS_REQUIRE_SLURM") != "" {
		t.Fatalf(format+" (TSYS_REQUIRE_SLURM is set: .ci/run installs SLURM)", args...)
	}
	t.Skipf(format, args...)
}

// Start starts a cluster of n nodes, each of cpus CPUs, and waits until
// every node is idle. It is stopped when the test ends: its jobs are
// cancelled and its daemons stopped.
func Start(t testing.TB, n, cpus int) *Cluster {
	t.Helper()
	if os.Geteuid() != 0 {
		Cannot(t, "SLURM's daemons need root here: run the tests as root (CI does)")
	}
	for _, cmd := range []string{"munged", "slurmctld", "slurmd", "srun", "sbatch", "scontrol"} {
		if _, err := exec.LookPath(cmd); err != nil {
			Cannot(t, "SLURM needs %s (Debian: apt-get install slurm-wlm munge)", cmd)
		}
	}
	c := &Cluster{Dir: t.TempDir()}
	// munged wants every directory up to its socket open to all, and its
	// key's private.
	for d := c.Dir; d != "/" && d != os.TempDir(); d = filepath.Dir(d) {
		os.Chmod(d, 0o755)
	}
	for _, d := range []string{"key", "sock", "state", "spool", "log", "config"} {
		if err := os.MkdirAll(filepath.Join(c.Dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.Chmod(filepath.Join(c.Dir, "key"), 0o700)
	os.Chmod(filepath.Join(c.Dir, "config"), 0o700)
	t.Cleanup(c.stop)
	c.startMunge(t)
	c.Nodes = make([]string, n)
	for i := range c.Nodes {
		c.Nodes[i] = fmt.Sprintf("n%d", i+1)
	}
	if namespaces(t) {
		h := netnstest.Bridged(t, n, true)
		c.Namespaces, c.Addrs = h.Names, h.Addrs
	} else {
		for range n {
			c.Addrs = append(c.Addrs, "127.0.0.1")
		}
	}
	c.writeConf(t, cpus)
	c.Env = append(os.Environ(), "SLURM_CONF="+c.Conf, "XDG_CONFIG_HOME="+filepath.Join(c.Dir, "config"))
	c.start(t, 0, "ctl", "slurmctld", "-D", "-f", c.Conf)
	for i, name := range c.Nodes {
		c.start(t, i, name, "slurmd", "-D", "-N", name, "-f", c.Conf)
	}
	c.waitIdle(t)
	return c
}

// namespaces reports whether this machine can make network namespaces
// with mount namespaces beside them, as the nodes need.
func namespaces(t testing.TB) bool {
	for _, cmd := range []string{"ip", "nsenter", "unshare"} {
		if _, err := exec.LookPath(cmd); err != nil {
			return false
		}
	}
	probe := fmt.Sprintf("tsysslurm%d", os.Getpid())
	if netnstest.IP("netns", "add", probe) != nil {
		t.Logf("slurmtest: no network namespaces here: every node on 127.0.0.1")
		return false
	}
	defer netnstest.IP("netns", "del", probe)
	if out, err := exec.Command("nsenter", "--net=/run/netns/"+probe, "unshare", "-m", "true").CombinedOutput(); err != nil {
		t.Logf("slurmtest: no mount namespace beside a network namespace here (%v: %s): every node on 127.0.0.1", err, out)
		return false
	}
	return true
}

func (c *Cluster) startMunge(t testing.TB) {
	t.Helper()
	key := make([]byte, 1024)
	rand.Read(key)
	if err := os.WriteFile(c.path("key/munge.key"), key, 0o400); err != nil {
		t.Fatal(err)
	}
	c.start(t, -1, "munged", "munged", "-F", "--key-file="+c.path("key/munge.key"), "--socket="+c.path("sock/munge.sock"),
		"--pid-file="+c.path("munged.pid"), "--log-file="+c.path("log/munged.log"), "--seed-file="+c.path("key/munged.seed"))
	for deadline := time.Now().Add(10 * time.Second); ; {
		if _, err := os.Stat(c.path("sock/munge.sock")); err == nil {
			return
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(c.path("log/munged.out"))
			Cannot(t, "munged did not start within 10 s: %s", b)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (c *Cluster) path(p string) string { return filepath.Join(c.Dir, p) }

// freePort is a TCP port nothing listens on now.
func freePort(t testing.TB) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// writeConf writes slurm.conf: the controller on the first node, each
// node at its address (on 127.0.0.1, each slurmd on a port of its own),
// and the hosts file of the nodes' namespaces.
func (c *Cluster) writeConf(t testing.TB, cpus int) {
	t.Helper()
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	host, _, _ = strings.Cut(host, ".")
	ctlPort, nodePort := 6817, 6818
	if c.Namespaces == nil {
		ctlPort = freePort(t)
	}
	var b strings.Builder
	fmt.Fprintf(&b, `ClusterName=tsystest
SlurmctldHost=%s(%s)
SlurmctldPort=%d
AuthType=auth/munge
AuthInfo=socket=%s
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=%s
SlurmdSpoolDir=%s/%%n
SlurmdPidFile=%s/slurmd-%%n.pid
SlurmctldPidFile=%s/slurmctld.pid
SlurmctldLogFile=%s/slurmctld.log
SlurmdLogFile=%s/slurmd-%%n.log
ProctrackType=proctrack/pgid
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
KillWait=5
MinJobAge=5
MailProg=/bin/true
`, host, c.Addrs[0], ctlPort, c.path("sock/munge.sock"), c.path("state"), c.path("spool"), c.Dir, c.Dir, c.path("log"), c.path("log"))
	var hosts strings.Builder
	hosts.WriteString("127.0.0.1 localhost\n")
	for i, name := range c.Nodes {
		port := nodePort
		if c.Namespaces == nil {
			port = freePort(t)
		}
		fmt.Fprintf(&b, "NodeName=%s NodeAddr=%s Port=%d CPUs=%d State=UNKNOWN\n", name, c.Addrs[i], port, cpus)
		fmt.Fprintf(&hosts, "%s %s\n", c.Addrs[i], name)
		os.MkdirAll(c.path("spool/"+name), 0o755)
	}
	fmt.Fprintf(&b, "PartitionName=test Nodes=%s Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES\n", strings.Join(c.Nodes, ","))
	c.Conf, c.hosts = c.path("slurm.conf"), c.path("hosts")
	if err := os.WriteFile(c.Conf, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(c.hosts, []byte(hosts.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Command is a command run on node i (its namespace, with the nodes'
// hosts file), with the cluster's Env: srun, sbatch, mpirun...
func (c *Cluster) Command(i int, name string, args ...string) *exec.Cmd {
	var cmd *exec.Cmd
	if c.Namespaces == nil || i < 0 {
		cmd = exec.Command(name, args...)
	} else {
		cmd = exec.Command("nsenter", append([]string{"--net=/run/netns/" + c.Namespaces[i], "unshare", "-m",
			"sh", "-c", `mount --bind "$0" /etc/hosts && exec "$@"`, c.hosts, name}, args...)...)
	}
	cmd.Env = c.Env
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	return cmd
}

// start starts a daemon on node i (-1: this namespace), its output in
// log/NAME.out.
func (c *Cluster) start(t testing.TB, i int, name, cmdName string, args ...string) {
	t.Helper()
	cmd := c.Command(i, cmdName, args...)
	cmd.Env = append(os.Environ(), "SLURM_CONF="+c.Conf)
	out, err := os.Create(c.path("log/" + name + ".out"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		Cannot(t, "starting %s: %v", cmdName, err)
	}
	c.procs = append(c.procs, cmd)
}

// waitIdle waits until every node is idle, or skips the test (Cannot)
// with the daemons' logs after 30 s.
func (c *Cluster) waitIdle(t testing.TB) {
	t.Helper()
	var last []byte
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		out, err := c.Command(0, "sinfo", "-h", "-N", "-o", "%N %T").CombinedOutput()
		last = out
		if err == nil && strings.Count(string(out), " idle") == len(c.Nodes) {
			return
		}
	}
	Cannot(t, "SLURM's nodes were not idle within 30 s: sinfo says %q\n%s", last, c.Logs())
}

// Logs are the daemons' logs, for a failure's message.
func (c *Cluster) Logs() string {
	var b bytes.Buffer
	files, _ := filepath.Glob(c.path("log/*"))
	for _, f := range files {
		data, _ := os.ReadFile(f)
		fmt.Fprintf(&b, "--- %s\n%s", filepath.Base(f), tailOf(data, 2000))
	}
	return b.String()
}

func tailOf(b []byte, n int) []byte { return b[max(0, len(b)-n):] }

// stop cancels the cluster's jobs and stops its daemons.
func (c *Cluster) stop() {
	if c.Conf != "" {
		c.Command(0, "scancel", "--full", "--user=root").Run()
		time.Sleep(300 * time.Millisecond)
	}
	for i := len(c.procs) - 1; i >= 0; i-- {
		p := c.procs[i]
		syscall.Kill(-p.Process.Pid, syscall.SIGTERM)
		done := make(chan struct{})
		go func() { p.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			syscall.Kill(-p.Process.Pid, syscall.SIGKILL)
			<-done
		}
	}
}

// JobOf is the job number of sbatch's "Submitted batch job N".
func JobOf(sbatchOutput string) (int, error) {
	f := strings.Fields(sbatchOutput)
	if len(f) == 0 {
		return 0, fmt.Errorf("sbatch said %q", sbatchOutput)
	}
	return strconv.Atoi(f[len(f)-1])
}
