package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// siege is a stranger at another loopback address (Linux routes all of
// 127/8 to lo; the nodes dial from 127.0.0.1) holding connections to a
// node's task port, reopening each as it closes, and sending garbage on
// more.
type siege struct {
	stop  chan struct{}
	wg    sync.WaitGroup
	mu    sync.Mutex
	conns map[net.Conn]bool
}

func besiege(t *testing.T, addr string, idle int) *siege {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP("127.0.0.2")}, Timeout: time.Second}
	if nc, err := d.Dial("tcp", addr); err != nil {
		t.Skipf("cannot dial from 127.0.0.2: %v", err)
	} else {
		nc.Close()
	}
	s := &siege{stop: make(chan struct{}), conns: map[net.Conn]bool{}}
	dial := func() net.Conn { // nil once stopped
		for {
			nc, err := d.Dial("tcp", addr)
			s.mu.Lock()
			select {
			case <-s.stop:
				s.mu.Unlock()
				if err == nil {
					nc.Close()
				}
				return nil
			default:
			}
			if err == nil {
				s.conns[nc] = true
				s.mu.Unlock()
				return nc
			}
			s.mu.Unlock()
			time.Sleep(10 * time.Millisecond)
		}
	}
	drop := func(nc net.Conn) {
		s.mu.Lock()
		delete(s.conns, nc)
		s.mu.Unlock()
		nc.(*net.TCPConn).SetLinger(0)
		nc.Close()
	}
	for range idle {
		s.wg.Go(func() {
			for nc := dial(); nc != nil; nc = dial() {
				io.Copy(io.Discard, nc) // until the node hangs up
				drop(nc)
				// The pause spares the test's CPU when the node
				// refuses at once.
				time.Sleep(10 * time.Millisecond)
			}
		})
	}
	s.wg.Go(func() {
		junk := []string{"GET / HTTP/1.1\r\nHost: x\r\n\r\n", "TSYS\x01\x00\xff\xff\xff\xff", "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03"}
		for i, nc := 0, dial(); nc != nil; i, nc = i+1, dial() {
			nc.Write([]byte(junk[i%len(junk)]))
			drop(nc)
			time.Sleep(time.Millisecond)
		}
	})
	t.Cleanup(s.end)
	return s
}

func (s *siege) end() {
	s.mu.Lock()
	select {
	case <-s.stop:
	default:
		close(s.stop)
	}
	for nc := range s.conns {
		nc.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
}

// peakRSS is a process's peak resident memory (VmHWM), in bytes.
func peakRSS(t *testing.T, pid int) int64 {
	t.Helper()
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Skipf("no /proc here: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				t.Fatalf("VmHWM %q: %v", v, err)
			}
			return kb << 10
		}
	}
	t.Fatalf("no VmHWM in /proc/%d/status", pid)
	return 0
}

// TestStrangerCannotKeepANodeOut: a stranger holding 300 idle connections
// to a node process's task port from one address, reopening each as it
// closes, and sending garbage on more, does not keep the node out of a
// 2-node job: it runs tasks, its peak memory stays under 100 MiB, and it
// logs the refusals at a few lines a second.
func TestStrangerCannotKeepANodeOut(t *testing.T) {
	const (
		maxRSS = 100 << 20
		// The bucket lets 10 lines through at once and one a second
		// after; the job adds a few lines of its own.
		burst, jobLines = 10, 10
	)
	n, err := startNode(t, "--bind", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	linesBefore := strings.Count(n.Stderr.String(), "\n")
	began := time.Now()
	s := besiege(t, n.Tasks, 300)
	n.WaitFor(t, "refused connection", 20*time.Second)
	// Past the handshake timeout: the idle connections have been dropped
	// and taken again.
	time.Sleep(time.Until(began.Add(1500 * time.Millisecond)))
	obj := tsysRun(t, "ep", "--class", "W", "--workers", "1", "--join", n.Gossip)
	s.end()
	elapsed := time.Since(began)
	log := n.Stderr.String()
	if obj["verified"] != true || obj["nodes"] != float64(2) {
		t.Fatalf("the job under siege: verified=%v nodes=%v\nnode log:\n%s", obj["verified"], obj["nodes"], log)
	}
	ran := false
	for _, pn := range perNode(t, obj) {
		if pn["node"] == n.Name && stat(pn, "tasks_run") > 0 {
			ran = true
		}
	}
	if !ran {
		t.Errorf("the besieged node %s ran no task of the job: %v", n.Name, obj["per_node"])
	}
	if peak := peakRSS(t, n.Cmd.Process.Pid); peak > maxRSS {
		t.Errorf("the besieged node's peak RSS is %d MiB, want at most %d", peak>>20, maxRSS>>20)
	} else {
		t.Logf("the node's peak RSS: %d MiB", peak>>20)
	}
	lines := strings.Count(log, "\n") - linesBefore
	t.Logf("the node logged %d lines in the %v of the siege", lines, elapsed.Round(time.Millisecond))
	if limit := burst + int(elapsed/time.Second) + 1 + jobLines; lines > limit {
		t.Errorf("the node logged %d lines in the %v of the siege, want at most %d:\n%s", lines, elapsed.Round(time.Millisecond), limit, log)
	}
	if !regexp.MustCompile(`refusals_not_logged=[1-9]`).MatchString(log) || strings.Count(log, "refused connection") < burst {
		t.Errorf("the node did not log the refusals as a bounded stream:\n%s", log)
	}
}
