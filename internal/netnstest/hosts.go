package netnstest

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
)

// Hosts are network namespaces, each with an IPv4 address of its own in
// one /24.
type Hosts struct {
	Names []string // the namespaces
	Addrs []string // each one's address
	// Devs are each namespace's own interface, the one its address is
	// on: a veth end (Bridged) or a TUN device (Emulated).
	Devs []string
	// Links are the bridge's ends of the hosts' veth pairs (Bridged
	// only): one set down cuts its host off, as a pulled cable does,
	// without its sockets hearing of it.
	Links []string
}

// made counts the sets of hosts this process made, for names of their own.
var made atomic.Int64

// Cannot skips the test, saying why namespaces cannot be made here; where
// TSYS_REQUIRE_NETNS is set (.ci/run found this machine able to make
// them) it fails it instead.
func Cannot(t testing.TB, format string, args ...any) {
	t.Helper()
	if os.Getenv("TSYS_REQUIRE_NETNS") != "" {
		t.Fatalf(format+" (TSYS_REQUIRE_NETNS is set: this machine was found able to)", args...)
	}
	t.Skipf(format, args...)
}

// newSet checks that namespaces can be made here (else Cannot) and
// returns a fresh id for this set's names and its subnet ("10.A.B").
// The id is this process's and this call's: a namespace whose processes
// are still being reaped outlives its test's cleanup for a moment, with
// its devices, and the next test of the process must not meet it; test
// binaries of several packages run at once.
func newSet(t testing.TB) (id int, subnet string) {
	t.Helper()
	if os.Geteuid() != 0 {
		Cannot(t, "network namespaces need root: run the tests as root (CI does) to check nodes on separate addresses")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		Cannot(t, "network namespaces need the ip command (Debian: apt-get install iproute2)")
	}
	id = os.Getpid()%10000*10 + int(made.Add(1)%10)
	return id, fmt.Sprintf("10.%d.%d", 100+id%100, id/100%250)
}

// IP runs the ip command with args, returning its output in the error.
func IP(args ...string) error {
	if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
		return fmt.Errorf("ip %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return nil
}

// addNamespaces makes h's n namespaces, named after id, each by steps
// (ip's arguments, with the namespace's name, its device's name and its
// address for %[1]s, %[2]s and %[3]s), and removes them when the test
// ends. A failure of the first host's first steps says the machine
// cannot (Cannot); a later one fails the test.
func (h *Hosts) addNamespaces(t testing.TB, id int, subnet string, n int, dev string, steps [][]string) {
	t.Helper()
	t.Cleanup(func() {
		for _, ns := range h.Names {
			IP("netns", "del", ns)
		}
	})
	for i := range n {
		ns, d, addr := fmt.Sprintf("tsys%d-%d", id, i), fmt.Sprintf(dev, id, i), fmt.Sprintf("%s.%d", subnet, i+1)
		if err := IP("netns", "add", ns); err != nil {
			Cannot(t, "cannot make network namespaces here: %v", err)
		}
		h.Names = append(h.Names, ns)
		for j, s := range steps {
			args := make([]string, len(s))
			for k, a := range s {
				args[k] = strings.NewReplacer("{ns}", ns, "{dev}", d, "{addr}", addr, "{i}", fmt.Sprint(i)).Replace(a)
			}
			if err := IP(args...); err != nil {
				if i == 0 && j == 0 {
					Cannot(t, "cannot make a host's device here: %v", err)
				}
				t.Fatal(err)
			}
		}
		h.Addrs, h.Devs = append(h.Addrs, addr), append(h.Devs, d)
	}
}

// Command is exec.Command run inside network namespace netns ("": this
// process's own).
func Command(netns, name string, args ...string) *exec.Cmd {
	if netns == "" {
		return exec.Command(name, args...)
	}
	return exec.Command("ip", append([]string{"netns", "exec", netns, name}, args...)...)
}
