package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// inNetns is exec.Command run inside network namespace netns ("": this
// process's own).
func inNetns(netns, name string, args ...string) *exec.Cmd {
	if netns == "" {
		return exec.Command(name, args...)
	}
	return exec.Command("ip", append([]string{"netns", "exec", netns, name}, args...)...)
}

// hosts are network namespaces on one virtual bridge, each with an address
// of its own: as far as the nodes can tell, separate machines on a LAN.
type hosts struct {
	names []string
	addrs []string
	// links are the bridge's ends of the hosts' veth pairs: one set down
	// cuts its host off, as a pulled cable does, without its sockets
	// hearing of it.
	links []string
}

// newHosts makes n namespaces and their bridge, removed when the test
// ends. It skips the test, saying why, where they cannot be made (not
// root, no ip command, no veth support); where TSYS_REQUIRE_NETNS is set
// (.ci/run sets it on a machine that can make them) it fails instead.
func newHosts(t *testing.T, n int) *hosts {
	t.Helper()
	cannot := func(format string, args ...any) {
		t.Helper()
		if os.Getenv("TSYS_REQUIRE_NETNS") != "" {
			t.Fatalf(format+" (TSYS_REQUIRE_NETNS is set: this machine was found able to)", args...)
		}
		t.Skipf(format, args...)
	}
	if os.Geteuid() != 0 {
		cannot("network namespaces need root: run the tests as root (CI does) to check nodes on separate addresses")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		cannot("network namespaces need the ip command (Debian: apt-get install iproute2)")
	}
	// The names are this process's and this call's: a namespace whose
	// processes are still being reaped outlives its test's cleanup for a
	// moment, with its veth, and the next test of the process must not
	// meet it.
	id := os.Getpid()%10000*10 + int(hostsMade.Add(1)%10)
	subnet := fmt.Sprintf("10.%d.%d", 100+id%100, id/100%250)
	bridge := fmt.Sprintf("tsysbr%d", id)
	ip := func(args ...string) error {
		if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
			return fmt.Errorf("ip %s: %v: %s", strings.Join(args, " "), err, out)
		}
		return nil
	}
	h := &hosts{}
	t.Cleanup(func() {
		for _, ns := range h.names {
			ip("netns", "del", ns)
		}
		ip("link", "del", bridge)
	})
	if err := ip("link", "add", bridge, "type", "bridge"); err != nil {
		cannot("cannot make a virtual bridge here: %v", err)
	}
	if err := ip("link", "set", bridge, "up"); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		ns, veth := fmt.Sprintf("tsys%d-%d", id, i), fmt.Sprintf("tsv%d-%d", id, i)
		addr := fmt.Sprintf("%s.%d", subnet, i+1)
		steps := [][]string{
			{"netns", "add", ns},
			{"link", "add", veth, "type", "veth", "peer", "name", veth + "b"},
			{"link", "set", veth, "netns", ns},
			{"link", "set", veth + "b", "master", bridge, "up"},
			{"-n", ns, "addr", "add", addr + "/24", "dev", veth},
			{"-n", ns, "link", "set", veth, "up"},
			{"-n", ns, "link", "set", "lo", "up"},
		}
		for j, s := range steps {
			if err := ip(s...); err != nil {
				if i == 0 && j < 2 {
					cannot("cannot make network namespaces here: %v", err)
				}
				t.Fatal(err)
			}
			if j == 0 {
				h.names = append(h.names, ns)
			}
		}
		h.addrs = append(h.addrs, addr)
		h.links = append(h.links, veth+"b")
	}
	return h
}

// TestAcrossNetworkNamespaces: nodes on separate addresses, joined by
// address, run a verified job. The seed binds every interface and
// advertises its address, as in a container; a node declares its task
// port; the job's client binds its own address. Without a key a node
// refuses a routable address, saying why.
func TestAcrossNetworkNamespaces(t *testing.T) {
	h := newHosts(t, 3)
	key := filepath.Join(t.TempDir(), "key")
	os.WriteFile(key, []byte("a key for the namespaces test"), 0o600)
	seed, err := startNodeIn(t, h.names[0], "--bind", "0.0.0.0:7946", "--advertise", h.addrs[0], "--key-file", key)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(seed.Gossip, h.addrs[0]+":") || !strings.HasPrefix(seed.Tasks, h.addrs[0]+":") {
		t.Errorf("a node bound to 0.0.0.0 advertises gossip %s and tasks %s, want %s", seed.Gossip, seed.Tasks, h.addrs[0])
	}
	other, err := startNodeIn(t, h.names[1], "--bind", h.addrs[1]+":7946", "--task-port", "7947", "--join", seed.Gossip, "--key-file", key)
	if err != nil {
		t.Fatal(err)
	}
	if other.Tasks != h.addrs[1]+":7947" {
		t.Errorf("--task-port 7947: the node's tasks are at %s", other.Tasks)
	}
	// --min-nodes 2: the job starts once both nodes take part, so that
	// every node running a task shows distribution across the namespaces,
	// not how soon presence crossed them on a loaded machine.
	cmd := inNetns(h.names[2], tsysBin, "run", "uts", "--tree", "T5", "--workers", "1", "--bind", h.addrs[2]+":0",
		"--join", seed.Gossip, "--key-file", key, "--min-nodes", "2", "--json")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("a job across namespaces: %v\n%s", err, stderr.String())
	}
	var obj map[string]any
	if err := json.Unmarshal(stdout.Bytes(), &obj); err != nil {
		t.Fatalf("%v: %s", err, stdout.String())
	}
	if obj["verified"] != true || len(perNode(t, obj)) != 3 {
		t.Fatalf("verified=%v, %d nodes reported, want 3", obj["verified"], len(perNode(t, obj)))
	}
	for _, pn := range perNode(t, obj) {
		if stat(pn, "tasks_run") == 0 {
			t.Errorf("node %v ran no task: steal requests %v, answers %v, tasks received %v, first work after %v ns; the job took %v s\n%s",
				pn["node"], stat(pn, "steal_requests"), stat(pn, "steal_answers"), stat(pn, "tasks_received"), pn["first_work_ns"], obj["wall_seconds"], stderr.String())
		}
	}
	if _, err := startNodeIn(t, h.names[1], "--bind", h.addrs[1]+":7950"); err == nil || !strings.Contains(err.Error(), "loopback") {
		t.Errorf("a keyless node on a routable address: %v", err)
	}
}

// hostsMade counts newHosts's calls, for names of their own.
var hostsMade atomic.Int64
