package main

import (
	"bytes"
	"os/exec"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/tsys-go/tsys/internal/clitest"
)

// statusWithProgress is a status line of a job on two nodes whose tasks
// have reported some of its progress.
var statusWithProgress = regexp.MustCompile(`tsys: [0-9.]+m?s, 2 nodes, [0-9.]+[kMG]? tasks/s, [0-9.]+[kMG]? steals/s \[=+ *\] \d+% [1-9]\d*/\d+`)

// TestLiveStatusOfAClusterJob: tsys run on two nodes, its stderr a
// terminal, shows the job's status with the progress its tasks report on
// both nodes (EP reports its batches). EP class A runs for seconds; it is
// stopped once the status has shown.
func TestLiveStatusOfAClusterJob(t *testing.T) {
	control, term := clitest.PTY(t)
	job := exec.Command(tsysBin, "run", "ep", "--class", "A", "--nodes", "2", "--workers", "1")
	job.Stderr = term
	if err := job.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { job.Process.Kill(); job.Wait() }()
	var (
		mu  sync.Mutex
		all bytes.Buffer
	)
	seen := make(chan struct{})
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := control.Read(buf)
			mu.Lock()
			all.Write(buf[:n])
			found := statusWithProgress.Match(all.Bytes())
			mu.Unlock()
			if found {
				close(seen)
				return
			}
			if err != nil {
				return
			}
		}
	}()
	select {
	case <-seen:
	case <-time.After(2 * time.Minute):
		mu.Lock()
		defer mu.Unlock()
		t.Fatalf("no status line with the progress of a 2-node job in 2 minutes; the terminal had %q", all.String())
	}
}
