package transport

import (
	"bufio"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tsys-go/tsys/internal/netnstest"
)

// cutRuns soaks TestCutResumes: go test -run TestCutResumes -v
// ./internal/net/transport/ -args -cut-runs 20 makes each of its cuts 20
// times.
var cutRuns = flag.Int("cut-runs", 1, "TestCutResumes: how many times to make each cut")

// The roles of the test binary run inside a namespace by TestCutResumes.
const (
	cutRoleEnv = "TSYS_TRANSPORT_CUT_ROLE" // "rx ADDR" or "tx ADDR"
)

// TestCutResumes cuts a connection carrying a message every 50 ms for 5 s
// and for 7 s (the receiver's bridge port down: the bridge drops what the
// sender sends, and the sender's kernel does not hear of it), and checks that messages arrive again within
// maxRTO of the link's return, plus a little for two processes on a busy
// machine: keepalive.go's bound. With TCP's own back-off the 7 s cut
// would wait 5.6 s more (TestResumeWithinDerivation). The two transports
// are this test binary run in two network namespaces; where those cannot
// be made the test is skipped, or fails where TSYS_REQUIRE_NETNS says
// they can.
func TestCutResumes(t *testing.T) {
	if testing.Short() {
		t.Skip("cuts a link for 12 s: -short skips it")
	}
	if !rtoCapped(t) {
		t.Skip("this kernel has no TCP_RTO_MAX_MS (Linux 6.15 and later): its connections keep TCP's back-off after a cut (keepalive.go)")
	}
	h := netnstest.Bridged(t, 2, true)
	rx := netnstest.Command(h.Names[0], os.Args[0], "-test.run=^TestCutRole$")
	rx.Env = append(os.Environ(), cutRoleEnv+"=rx "+h.Addrs[0]+":7400")
	out, err := rx.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	rx.Stderr = os.Stderr
	if err := rx.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rx.Process.Kill(); rx.Wait() })
	arrivals := make(chan time.Time, 1024)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if ns, err := strconv.ParseInt(strings.TrimPrefix(sc.Text(), "got "), 10, 64); err == nil && strings.HasPrefix(sc.Text(), "got ") {
				arrivals <- time.Unix(0, ns)
			}
		}
		close(arrivals)
	}()
	tx := netnstest.Command(h.Names[1], os.Args[0], "-test.run=^TestCutRole$")
	tx.Env = append(os.Environ(), cutRoleEnv+"=tx "+h.Addrs[0]+":7400")
	tx.Stdout, tx.Stderr = os.Stderr, os.Stderr
	if err := tx.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tx.Process.Kill(); tx.Wait() })
	next := func(after time.Time, within time.Duration) (time.Time, bool) {
		deadline := time.After(within)
		for {
			select {
			case at, ok := <-arrivals:
				if !ok {
					t.Fatal("the receiver ended")
				}
				if at.After(after) {
					return at, true
				}
			case <-deadline:
				return time.Time{}, false
			}
		}
	}
	if _, ok := next(time.Now(), 20*time.Second); !ok {
		t.Fatal("no message arrived across the namespaces in 20 s")
	}
	var cuts []time.Duration
	for range max(*cutRuns, 1) {
		cuts = append(cuts, 5*time.Second, 7*time.Second)
	}
	for _, cut := range cuts {
		h.SetLink(t, 0, false)
		down := time.Now()
		time.Sleep(cut)
		// What arrived in the cut, past the messages in flight as it
		// began: nothing, or the link was not cut.
		inCut := 0
		for drained := false; !drained; {
			select {
			case at := <-arrivals:
				if at.After(down.Add(200 * time.Millisecond)) {
					inCut++
				}
			default:
				drained = true
			}
		}
		if inCut > 0 {
			t.Fatalf("%d messages arrived during a %v cut: the link was not cut", inCut, cut)
		}
		h.SetLink(t, 0, true)
		up := time.Now()
		at, ok := next(up, 30*time.Second)
		if !ok {
			t.Fatalf("a %v cut: no message 30 s after the link came back", cut)
		}
		gap := at.Sub(up)
		t.Logf("a %v cut: the first message arrived %v after the link came back", cut, gap.Round(time.Millisecond))
		if gap > maxRTO+500*time.Millisecond {
			t.Errorf("a %v cut: the first message arrived %v after the link came back, want within %v (maxRTO) and some scheduling", cut, gap, maxRTO)
		}
	}
}

// TestCutRole is TestCutResumes's receiver (prints each message's arrival)
// or sender (a message every 50 ms), when run by it.
func TestCutRole(t *testing.T) {
	role, addr, ok := strings.Cut(os.Getenv(cutRoleEnv), " ")
	if !ok {
		t.Skip("run by TestCutResumes")
	}
	quiet := slog.New(slog.DiscardHandler)
	switch role {
	case "rx":
		tr, err := Listen(Config{Name: "rx", Bind: addr, Key: []byte("cut test key"), Logger: quiet}, func(string, *Message) {
			fmt.Printf("got %d\n", time.Now().UnixNano())
		})
		if err != nil {
			t.Fatal(err)
		}
		defer tr.Close()
		select {} // until killed
	case "tx":
		tr, err := Listen(Config{Name: "tx", Bind: "0.0.0.0:0", Key: []byte("cut test key"), Logger: quiet}, func(string, *Message) {})
		if err != nil {
			t.Fatal(err)
		}
		defer tr.Close()
		for range time.Tick(50 * time.Millisecond) {
			tr.Send(addr, testMessage{Type: tPing}.msg())
		}
	}
}

// rtoCapped says whether this kernel takes TCP_RTO_MAX_MS.
func rtoCapped(t *testing.T) bool {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	return syscall.SetsockoptInt(fd, syscall.IPPROTO_TCP, tcpRTOMaxMS, int(maxRTO.Milliseconds())) == nil
}
