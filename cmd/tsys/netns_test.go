package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tsys-go/tsys/internal/netnstest"
)

// TestAcrossNetworkNamespaces: nodes on separate addresses, joined by
// address, run a verified job. The seed binds every interface and
// advertises its address, as in a container; a node declares its task
// port; the job's client binds its own address. Without a key a node
// refuses a routable address, saying why.
func TestAcrossNetworkNamespaces(t *testing.T) {
	h := netnstest.Bridged(t, 3, false)
	key := filepath.Join(t.TempDir(), "key")
	os.WriteFile(key, []byte("a key for the namespaces test"), 0o600)
	seed, err := startNodeIn(t, h.Names[0], "--bind", "0.0.0.0:7946", "--advertise", h.Addrs[0], "--key-file", key)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(seed.Gossip, h.Addrs[0]+":") || !strings.HasPrefix(seed.Tasks, h.Addrs[0]+":") {
		t.Errorf("a node bound to 0.0.0.0 advertises gossip %s and tasks %s, want %s", seed.Gossip, seed.Tasks, h.Addrs[0])
	}
	other, err := startNodeIn(t, h.Names[1], "--bind", h.Addrs[1]+":7946", "--task-port", "7947", "--join", seed.Gossip, "--key-file", key)
	if err != nil {
		t.Fatal(err)
	}
	if other.Tasks != h.Addrs[1]+":7947" {
		t.Errorf("--task-port 7947: the node's tasks are at %s", other.Tasks)
	}
	// --min-nodes 2: the job starts once both nodes take part, so that
	// every node running a task shows distribution across the namespaces,
	// not how soon presence crossed them on a loaded machine.
	cmd := netnstest.Command(h.Names[2], tsysBin, "run", "uts", "--tree", "T5", "--workers", "1", "--bind", h.Addrs[2]+":0",
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
	if _, err := startNodeIn(t, h.Names[1], "--bind", h.Addrs[1]+":7950"); err == nil || !strings.Contains(err.Error(), "loopback") {
		t.Errorf("a keyless node on a routable address: %v", err)
	}
}
