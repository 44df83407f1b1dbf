package main

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tsys-go/tsys/internal/stranger"
)

// TestStrangerOnPeersAddressCannotKeepANodeOut: a stranger holding 300
// idle connections to a node process's task port, reopening each as it
// closes, from 127.0.0.1 (the address the root of a one-machine cluster
// dials from) or from 127.0.0.2, keeps the node out of none of 5 jobs,
// keyless or keyed; the node's peak memory stays under 100 MiB and it
// logs the refusals at most a burst and a line a second.
func TestStrangerOnPeersAddressCannotKeepANodeOut(t *testing.T) {
	const (
		jobs   = 5
		maxRSS = 100 << 20
		burst  = 10 // the refusals' bucket: 10 lines at once, then one a second
	)
	keyFile := filepath.Join(t.TempDir(), "key")
	if err := os.WriteFile(keyFile, []byte("correct horse battery staple 37"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, from := range []string{"127.0.0.1", "127.0.0.2"} {
		for _, keyed := range []bool{false, true} {
			name := from + "/keyless"
			var keyArgs []string
			if keyed {
				name, keyArgs = from+"/keyed", []string{"--key-file", keyFile}
			}
			t.Run(name, func(t *testing.T) {
				n, err := startNode(t, append([]string{"--bind", "127.0.0.1:0"}, keyArgs...)...)
				if err != nil {
					t.Fatal(err)
				}
				before := len(n.Stderr.String())
				began := time.Now()
				s := stranger.StartFrom(t, net.ParseIP(from), n.Tasks, 300)
				// Past the handshake timeout: the stranger's first idle
				// connections have been closed and reopened.
				time.Sleep(1500 * time.Millisecond)
				took := 0
				for i := range jobs {
					obj, rootLog := startJobLogged(t, append([]string{"ep", "--class", "S", "--workers", "1", "--join", n.Gossip}, keyArgs...)...)()
					in := false
					for _, pn := range perNode(t, obj) {
						in = in || pn["node"] == n.Name
					}
					if obj["verified"] != true || obj["nodes"] != float64(2) || !in {
						t.Errorf("job %d under siege: verified=%v nodes=%v, the besieged node in it: %v; the root's log:\n%s", i+1, obj["verified"], obj["nodes"], in, rootLog)
						continue
					}
					took++
				}
				s.Stop()
				elapsed := time.Since(began)
				log := n.Stderr.String()[before:]
				if took != jobs {
					t.Errorf("the node took part in %d of %d jobs; its log:\n%s", took, jobs, log)
				}
				if peak := peakRSS(t, n.Cmd.Process.Pid); peak > maxRSS {
					t.Errorf("the besieged node's peak RSS is %d MiB, want at most %d", peak>>20, maxRSS>>20)
				}
				// The lines a stranger causes here are the refusals, which
				// come from one bucket.
				lines := strings.Count(log, `msg="transport: refused connection`)
				t.Logf("%d of %d jobs in %v; the stranger dialled %d times; the node logged %d refusals", took, jobs, elapsed.Round(time.Millisecond), s.Dials(), lines)
				if limit := burst + int(elapsed/time.Second) + 1; lines > limit {
					t.Errorf("the node logged %d refusals in the %v of the siege, want at most %d:\n%s", lines, elapsed.Round(time.Millisecond), limit, log)
				}
			})
		}
	}
}
