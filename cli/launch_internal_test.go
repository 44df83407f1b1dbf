package cli

import (
	"bytes"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tsys-go/tsys/internal/launch"
)

// TestResolveOneHost: ranks all on this host listen on loopback, rank 0
// on its derived port, the others joining it there, every rank with
// the key derived for the job from the user's secret.
func TestResolveOneHost(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	l := &launch.Launch{Launcher: "SLURM", Size: 3, Host: "n1", OneHost: true, RootPort: 21234, Job: "slurm job 1 step 0"}
	var keys [][]byte
	for rank := range 3 {
		l := *l
		l.Rank = rank
		p, err := resolveLaunch(&l, launchFlags{}, "", &bytes.Buffer{})
		if err != nil {
			t.Fatal(err)
		}
		wantBind, wantJoin := "127.0.0.1:0", "127.0.0.1:21234"
		if rank == 0 {
			wantBind, wantJoin = "127.0.0.1:21234", ""
		}
		if p.bind != wantBind || p.join != wantJoin || p.name != "rank"+string(rune('0'+rank))+"@n1" {
			t.Errorf("rank %d: bind %s, join %s, name %s", rank, p.bind, p.join, p.name)
		}
		keys = append(keys, p.key)
	}
	if !bytes.Equal(keys[0], keys[2]) || len(keys[0]) != 32 {
		t.Errorf("the ranks derived keys %x and %x", keys[0], keys[2])
	}
	// Kubernetes gives no shared home: the key must come from a file.
	k := &launch.Launch{Launcher: "Kubernetes", Size: 2, OneHost: true, NeedsKeyFile: "pods share no home directory"}
	if _, err := resolveLaunch(k, launchFlags{}, "", &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "--key-file") {
		t.Errorf("Kubernetes without --key-file: %v", err)
	}
}

func TestNetworkFilter(t *testing.T) {
	pick, err := networkFilter("10.1.0.0/16")
	if err != nil || !pick(net.ParseIP("10.1.2.3")) || pick(net.ParseIP("10.2.0.1")) {
		t.Errorf("CIDR: %v", err)
	}
	if pick, err := networkFilter("lo"); err == nil && !pick(net.ParseIP("127.0.0.1")) {
		t.Error("the loopback interface does not hold 127.0.0.1")
	}
	if _, err := networkFilter("no-such-if0"); err == nil || !strings.Contains(err.Error(), "CIDR") {
		t.Errorf("a bad --launch-network: %v", err)
	}
	if addr, err := ownAddress("ignored", "127.0.0.0/8", mustFilter(t, "127.0.0.0/8")); err != nil || addr != "127.0.0.1" {
		t.Errorf("own address on 127.0.0.0/8: %s, %v", addr, err)
	}
}

func mustFilter(t *testing.T, network string) func(net.IP) bool {
	t.Helper()
	pick, err := networkFilter(network)
	if err != nil {
		t.Fatal(err)
	}
	return pick
}

// TestRootFile: a rank reads rank 0's address from the file once it
// holds this job's, not an earlier job's, and gives up, saying why,
// when none comes.
func TestRootFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tsys.root")
	if err := publishRoot(path, "job 1", "10.0.0.1:2000"); err != nil {
		t.Fatal(err)
	}
	go func() {
		time.Sleep(100 * time.Millisecond)
		publishRoot(path, "job 2", "10.0.0.2:3000")
	}()
	if addr, err := readRoot(path, "job 2", 10*time.Second); err != nil || addr != "10.0.0.2:3000" {
		t.Errorf("job 2 read %q, %v", addr, err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("the address file's mode is %v", fi.Mode().Perm())
	}
	if _, err := readRoot(path, "job 3", 100*time.Millisecond); err == nil || !strings.Contains(err.Error(), "shared") {
		t.Errorf("no address for job 3: %v", err)
	}
}

// TestRootFileNotAFile: a --launch-root that names no regular file (here
// a directory; a pipe or a device alike) is bad usage at once, not a
// read that could block past the timeout.
func TestRootFileNotAFile(t *testing.T) {
	_, err := readRoot(t.TempDir(), "job 1", 10*time.Second)
	var u usageError
	if !errors.As(err, &u) || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("readRoot of a directory: %v, want bad usage that says it is not a regular file", err)
	}
}

// TestLaunchWorkers: the CPUs a launcher gives a rank become its workers
// only within --workers' bound; past it, bad usage naming the launcher.
func TestLaunchWorkers(t *testing.T) {
	c := &command{name: "prog"}
	if w, err := c.launchWorkers(&launch.Launch{Launcher: "SLURM", Workers: 2}); err != nil || w != 2 {
		t.Errorf("2 CPUs: %d workers, %v", w, err)
	}
	_, err := c.launchWorkers(&launch.Launch{Launcher: "SLURM", Workers: 1 << 30})
	var u usageError
	if !errors.As(err, &u) || !strings.Contains(err.Error(), "SLURM gave this rank") {
		t.Errorf("2^30 CPUs: %v, want bad usage naming SLURM", err)
	}
}
