package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tsys-go/tsys/internal/netnstest"
)

// TestWorkerCutOffFor5s: a node serving a job is cut off from the others
// for 5 s (its link to the bridge down: nothing reaches it, and its
// sockets hear nothing of it), then comes back. The job's answer is
// verified and it costs at most the cut and 2 s more than 1.5 times the
// same job undisturbed: its connections resume within a second of the
// link's return (package transport, keepalive.go) rather than after
// TCP's back-off. The client runs memberlist's LAN timing, under which a
// 5 s cut goes unnoticed, as in the run.
func TestWorkerCutOffFor5s(t *testing.T) {
	if testing.Short() {
		t.Skip("a job undisturbed and one with a 5 s cut: -short skips it")
	}
	const cut = 5 * time.Second
	h := netnstest.Bridged(t, 3, false)
	key := filepath.Join(t.TempDir(), "key")
	os.WriteFile(key, []byte("a key for the cut test"), 0o600)
	seed, err := startNodeIn(t, h.Names[0], "--bind", h.Addrs[0]+":7946", "--key-file", key)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := startNodeIn(t, h.Names[1], "--bind", h.Addrs[1]+":7946", "--join", seed.Gossip, "--key-file", key); err != nil {
		t.Fatal(err)
	}
	run := func(during func()) (time.Duration, map[string]any) {
		t.Helper()
		cmd := netnstest.Command(h.Names[2], tsysBin, "run", "ep", "--class", "A", "--workers", "1", "--bind", h.Addrs[2]+":0",
			"--join", seed.Gossip, "--key-file", key, "--min-nodes", "2", "--json")
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		began := time.Now()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		if during != nil {
			during()
		}
		var err error
		select {
		case err = <-done:
		case <-time.After(3 * time.Minute):
			cmd.Process.Kill()
			<-done
			t.Fatalf("the job still runs after 3 minutes\n%s", stderr.String())
		}
		took := time.Since(began)
		if err != nil {
			t.Fatalf("the job: %v\n%s", err, stderr.String())
		}
		var obj map[string]any
		if err := json.Unmarshal(stdout.Bytes(), &obj); err != nil {
			t.Fatalf("%v: %s", err, stdout.String())
		}
		if obj["verified"] != true {
			t.Fatalf("the answer is not verified: %s\n%s", stdout.String(), stderr.String())
		}
		return took, obj
	}
	calm, obj := run(nil)
	if calm < 3*time.Second {
		t.Logf("the undisturbed job took %v: a cut of %v starting after 1 s may outlast it", calm, cut)
	}
	var cutAt time.Duration
	took, _ := run(func() {
		// Into the job, once its nodes take part: a third of its
		// undisturbed time, at least a second.
		cutAt = max(calm/3, time.Second)
		time.Sleep(cutAt)
		h.SetLink(t, 1, false)
		time.Sleep(cut)
		h.SetLink(t, 1, true)
	})
	bound := calm*3/2 + cut + 2*time.Second
	t.Logf("undisturbed %v (%v s of work), with a %v cut at %v: %v; bound %v", calm.Round(time.Millisecond), obj["wall_seconds"], cut, cutAt.Round(time.Millisecond), took.Round(time.Millisecond), bound)
	if took > bound {
		t.Errorf("a %v cut of a worker: the job took %v, undisturbed %v; want at most %v", cut, took, calm, bound)
	}
}
