package main

import (
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestUsageErrorsExit2: every mistake on the command line, of every
// verb, exits 2 with a message that names the mistake (msg) and says
// what to write instead (fix): a sweep of wrong invocations. Some are
// found only on the network (a --join seed that is an HTTP server, or a
// name that does not resolve; a drain's ADDR that is not a node's task
// address) and are the command line's mistakes all the same; a network
// that fails is not (TestNetworkFailureExits1).
func TestUsageErrorsExit2(t *testing.T) {
	// An HTTP server where a node's gossip or task address belongs: a
	// node's --http address is one. It answers a join's gossip at once;
	// a task transport's Hello holds no line end, so that an HTTP server
	// answers it only at its header timeout (5 s for a node's --http):
	// for drain and jobs, a server that answers what it reads at once
	// stands for it.
	web := httptest.NewServer(http.NotFoundHandler())
	defer web.Close()
	httpAddr := strings.TrimPrefix(web.URL, "http://")
	quickHTTP := answerAtOnce(t, "HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n")
	dir := t.TempDir()
	// .invalid never resolves (RFC 6761).
	const nowhere = "no-such-node.invalid"
	cases := []struct {
		args     []string
		msg, fix string
	}{
		// The verbs and the programs.
		{nil, "no command", "tsys help"},
		{[]string{"frobnicate"}, `unknown command "frobnicate"`, "tsys help"},
		{[]string{"status"}, `unknown command "status"`, "tsys help"},
		{[]string{"run"}, "run needs a program", "tsys run PROGRAM"},
		{[]string{"run", "nope"}, `unknown program "nope"`, "want one of ep, fib"},

		// run: flags and their values.
		{[]string{"run", "fib", "--bogus"}, "flag provided but not defined: -bogus", "tsys run fib --help"},
		{[]string{"run", "fib", "-n", "abc"}, `invalid value "abc" for flag -n`, "tsys run fib --help"},
		{[]string{"run", "fib", "extra"}, `unexpected argument "extra"`, "tsys run fib --help"},
		{[]string{"run", "fib", "-n", "-3"}, "out of range", "want 0..92"},
		{[]string{"run", "fib", "--workers", "0"}, "--workers 0", "want at least 1"},
		{[]string{"run", "fib", "--workers", "100000"}, "--workers 100000", "use about as many workers as cores"},
		{[]string{"run", "fib", "--nodes", "0"}, "--nodes 0", "want at least 1"},
		{[]string{"run", "fib", "--nodes", "100000"}, "--nodes 100000", "simulate many (tsys sim --nodes 100000)"},
		{[]string{"run", "fib", "--inline", "sometimes"}, `unknown inlining policy "sometimes"`, "want load:K, off or always"},
		{[]string{"run", "fib", "--sched", "psychic"}, `unknown scheduler "psychic"`, "want local, fishing"},
		{[]string{"run", "fib", "--sched", "fishing:tasks=0"}, `fishing option tasks="0"`, "want a whole number of at least 1"},
		{[]string{"run", "fib", "--sched", "fishing:load,hold=soon"}, `fishing option hold="soon"`, "want a positive duration"},
		{[]string{"run", "fib", "--sched", "fishing:random,greed=9"}, `unknown fishing option "greed"`, "want random|load|zone"},
		{[]string{"run", "fib", "--sched", "fishing:nearest"}, `unknown fishing victim choice "nearest"`, "want random, load or zone"},
		{[]string{"run", "fib", "--sched", "balance:limit=0"}, `balance option limit="0"`, "want a whole number of at least 1"},
		{[]string{"run", "fib", "--sched", "ratebalance:threshold=-1"}, `ratebalance option threshold="-1"`, "want a positive fraction"},
		{[]string{"run", "uts", "--tree", "T9"}, `unknown tree "T9"`, "valid: T1"},
		{[]string{"run", "uts", "-q", "1.5", "-t", "0"}, "probability -q 1.5", "must be in [0,1]"},
		{[]string{"run", "ep", "--class", "Z"}, `unknown class "Z"`, "valid: S, W"},
		{[]string{"run", "rt", "--scene", "teapot"}, `unknown scene "teapot"`, "valid scenes: balls"},
		{[]string{"run", "rt", "-w", "-5"}, "-w -5", "want 1 to 16384"},
		{[]string{"run", "rt", "-o", "/nonexistent-dir/x.png"}, "cannot write the image to /nonexistent-dir/x.png", "give -o a file in a folder that exists"},
		{[]string{"run", "fib", "--hog", "1=0.5"}, `--hog "1=0.5"`, "want NODE=SPEC with NODE from 0 (this process) to 0"},
		{[]string{"run", "fib", "--hog", "0=2"}, `hog "2"`, "want a fraction of a core in (0, 1]"},
		{[]string{"run", "fib", "--hog", "0=0.5:2s"}, `hog "0.5:2s"`, "the period must be ON/OFF"},
		{[]string{"run", "fib", "--timeout", "-1s"}, "--timeout -1s", "want a duration of 0 (no limit) or more"},
		{[]string{"run", "fib", "--profile", "bogus"}, `--profile "bogus"`, "want cpu, mem, block, mutex or trace"},
		{[]string{"run", "fib", "--timeline", "/nonexistent-dir/x.json"}, "--timeline: open /nonexistent-dir/x.json", "give a file in a folder that exists"},
		{[]string{"run", "fib", "--min-nodes", "2"}, "--min-nodes and --max-nodes are for a job that joins a shared cluster", "add --join HOST:PORT"},
		{[]string{"run", "fib", "--join", "127.0.0.1:1", "--min-nodes", "3", "--max-nodes", "2"}, "--min-nodes 3 is more than --max-nodes 2", "want a least no more than the most"},
		{[]string{"run", "fib", "--join", "127.0.0.1:1", "--max-nodes", "-1"}, "--max-nodes -1", "want counts of nodes, 0 or more"},

		// run: the network flags.
		{[]string{"run", "fib", "--bind", "bogus"}, `--bind "bogus"`, "want HOST:PORT"},
		{[]string{"run", "fib", "--join", "127.0.0.1:99999"}, `--join "127.0.0.1:99999"`, "want a port from 1 to 65535"},
		{[]string{"run", "fib", "--join", ","}, `--join ""`, "want HOST or HOST:PORT"},
		{[]string{"run", "fib", "--join", "10.0.0.1:7946,"}, `--join ""`, "want HOST or HOST:PORT"},
		{[]string{"run", "fib", "--join", "host:port"}, `--join "host:port"`, "want a port from 1 to 65535"},
		{[]string{"run", "fib", "--http", "bogus"}, `--http "bogus"`, "want HOST:PORT"},
		{[]string{"run", "fib", "--advertise", "127.0.0.1:99999"}, `--advertise "127.0.0.1:99999"`, "want a port from 1"},
		{[]string{"run", "fib", "--task-port", "70000"}, "--task-port 70000", "want a port from 0 (any) to 65535"},
		{[]string{"run", "fib", "--join-timeout", "0s"}, "--join-timeout 0s", "want more than 0"},
		{[]string{"run", "fib", "--probe-interval", "-1s"}, "--probe-interval -1s", "want more than 0"},
		{[]string{"run", "fib", "--nodes", "2", "--bind", "0.0.0.0:0"}, "--bind 0.0.0.0:0: listening beyond this machine needs a cluster key", "add --key-file FILE"},
		{[]string{"run", "fib", "--http", "0.0.0.0:0"}, "--http 0.0.0.0:0: a routable --http address needs a cluster key", "use a loopback address such as 127.0.0.1:8080"},
		{[]string{"run", "fib", "--nodes", "2", "--bind", nowhere + ":0"}, "no such host", "check the host name " + nowhere},
		{[]string{"run", "fib", "--join", httpAddr}, "the seed does not speak gossip: it answers HTTP: is it a node's --http address?", "give the node's gossip address"},
		{[]string{"run", "fib", "--join", nowhere + ":7946", "--join-timeout", "300ms"}, "no seed's host name resolves", "check the host names in --join"},
		{[]string{"run", "fib", "--key-file", filepath.Join(dir, "none"), "--nodes", "2"}, "--key-file", "make one: head -c 32 /dev/urandom"},

		// run: flags that do nothing with the others.
		{[]string{"run", "fib", "--serial", "--nodes", "2"}, "--nodes does nothing with --serial", "drop --nodes, or drop --serial"},
		{[]string{"run", "fib", "--serial", "--join", "127.0.0.1:1"}, "--join does nothing with --serial", "drop --join, or drop --serial"},
		{[]string{"run", "fib", "--serial", "--workers", "2"}, "--workers does nothing with --serial", "drop --workers, or drop --serial"},
		{[]string{"run", "fib", "--serial", "--sched", "fishing"}, "--sched does nothing with --serial", "drop --sched, or drop --serial"},
		{[]string{"run", "fib", "--serial", "--inline", "off"}, "--inline does nothing with --serial", "drop --inline, or drop --serial"},
		{[]string{"run", "fib", "--serial", "--timeline", filepath.Join(dir, "t.json")}, "--timeline does nothing with --serial", "drop --timeline, or drop --serial"},
		{[]string{"run", "fib", "--serial", "--key-file", filepath.Join(dir, "none")}, "--key-file does nothing with --serial", "drop --key-file, or drop --serial"},
		{[]string{"run", "fib", "--serial", "--http", "127.0.0.1:0"}, "--http watches the runtime", "drop one of them"},
		{[]string{"run", "fib", "--serial", "--workspan"}, "--serial runs none", "drop one of them"},
		{[]string{"run", "fib", "--timeline-cap", "5"}, "--timeline-cap does nothing without --timeline", "add --timeline FILE"},
		{[]string{"run", "fib", "--profile-dir", dir}, "--profile-dir does nothing without --profile", "add --profile cpu"},
		{[]string{"run", "fib", "--workspan", "--inline", "off"}, "--inline does nothing with --workspan", "drop --inline, or drop --workspan"},
		{[]string{"run", "fib", "--key-file", filepath.Join(dir, "none")}, "--key-file does nothing on a run of one node", "add --nodes N or --join HOST:PORT"},
		{[]string{"run", "fib", "--task-port", "7000"}, "--task-port does nothing on a run of one node", "add --nodes N or --join HOST:PORT"},
		{[]string{"run", "fib", "--nodes", "2", "--join", "127.0.0.1:1"}, "--nodes and --join do not go together", "drop one of them"},
		{[]string{"run", "fib", "--record-tree", filepath.Join(dir, "t.tree"), "--nodes", "2"}, "--record-tree records one node's tree", "drop them, or --record-tree"},
		{[]string{"run", "fib", "--workspan", "--join", "127.0.0.1:1"}, "--workspan does not go with --join", "measure with --nodes N"},

		// node.
		{[]string{"node", "extra"}, `node: unexpected argument "extra"`, "tsys node --help"},
		{[]string{"node", "--bogus"}, "flag provided but not defined: -bogus", "tsys node --help"},
		{[]string{"node", "--workers", "0"}, "--workers 0", "want at least 1"},
		{[]string{"node", "--sched", "nope"}, `unknown scheduler "nope"`, "want local, fishing"},
		{[]string{"node", "--inline", "nope"}, `unknown inlining policy "nope"`, "want load:K, off or always"},
		{[]string{"node", "--share", "lottery"}, `--share "lottery"`, "want one of fchp, equi, exclusive"},
		{[]string{"node", "--log-level", "loud"}, `--log-level "loud"`, "want debug, info, warn or error"},
		{[]string{"node", "--profile", "bogus"}, `--profile "bogus"`, "want cpu, mem, block, mutex or trace"},
		{[]string{"node", "--profile-dir", dir}, "--profile-dir does nothing without --profile", "add --profile cpu"},
		{[]string{"node", "--hog", "3"}, `hog "3"`, "want a fraction of a core in (0, 1]"},
		{[]string{"node", "--cpu", "99999"}, "--cpu 99999", "want a CPU number"},
		{[]string{"node", "--drain-timeout", "-1s"}, "--drain-timeout -1s", "want more than 0"},
		{[]string{"node", "--bind", "bogus"}, `--bind "bogus"`, "want HOST:PORT"},
		{[]string{"node", "--bind", "0.0.0.0:0"}, "--bind 0.0.0.0:0: listening beyond this machine needs a cluster key", "add --key-file FILE"},
		{[]string{"node", "--http", "0.0.0.0:0"}, "--http 0.0.0.0:0: a routable --http address needs a cluster key", "use a loopback address such as 127.0.0.1:8080"},
		{[]string{"node", "--key-file", filepath.Join(dir, "none")}, "--key-file", "make one: head -c 32 /dev/urandom"},
		{[]string{"node", "--bind", "127.0.0.1:0", "--join", httpAddr, "--join-timeout", "5s"}, "it answers HTTP: is it a node's --http address?", "give the node's gossip address"},
		{[]string{"node", "--bind", "127.0.0.1:0", "--join", nowhere, "--join-timeout", "300ms"}, "no seed's host name resolves", "check the host names in --join"},

		// drain and jobs.
		{[]string{"drain"}, "drain: want a node's task address HOST:PORT, got 0 arguments", "HOST:PORT"},
		{[]string{"drain", "127.0.0.1:1", "extra"}, "got 2 arguments", "want a node's task address HOST:PORT"},
		{[]string{"drain", "garbage"}, "drain garbage", "want a node's task address HOST:PORT, the \"tasks HOST:PORT\" its banner prints"},
		{[]string{"drain", "--timeout", "0s", "127.0.0.1:1"}, "--timeout 0s", "want more than 0"},
		{[]string{"drain", "--bind", "nope", "127.0.0.1:1"}, `--bind "nope"`, "want HOST:PORT"},
		{[]string{"drain", "--bind", "0.0.0.0:0", "127.0.0.1:1"}, "--bind 0.0.0.0:0: listening beyond this machine needs a cluster key", "--bind 127.0.0.1:0"},
		{[]string{"drain", "--key-file", filepath.Join(dir, "none"), "127.0.0.1:1"}, "--key-file", "make one: head -c 32 /dev/urandom"},
		{[]string{"drain", quickHTTP}, "it answers HTTP: is it a node's --http address?", "give the node's task address"},
		{[]string{"drain", nowhere + ":7000"}, "no such host", "check the host name " + nowhere},
		{[]string{"jobs"}, "jobs: want a node's task address HOST:PORT, got 0 arguments", "HOST:PORT"},
		{[]string{"jobs", "garbage"}, "jobs garbage", "want a node's task address HOST:PORT"},
		{[]string{"jobs", "host:port"}, "jobs host:port", "want a node's task address HOST:PORT"},
		{[]string{"jobs", "127.0.0.1:99999"}, "jobs 127.0.0.1:99999", "want a node's task address HOST:PORT"},
		{[]string{"jobs", "--bogus", "127.0.0.1:1"}, "flag provided but not defined: -bogus", "tsys jobs --help"},
		{[]string{"jobs", quickHTTP}, "it answers HTTP: is it a node's --http address?", "give the node's task address"},

		// token, hog and version.
		{[]string{"token"}, "token: want --key-file FILE", "--key-file FILE and nothing else"},
		{[]string{"token", "extra"}, "token: want --key-file FILE", "--key-file FILE and nothing else"},
		{[]string{"token", "--key-file", filepath.Join(dir, "none")}, "--key-file", "make one: head -c 32 /dev/urandom"},
		{[]string{"token", "--key-file", os.DevNull}, "0 bytes of key", "want at least 16"},
		{[]string{"hog"}, "hog: want one load", "e.g. 0.5"},
		{[]string{"hog", "2"}, `hog "2"`, "want a fraction of a core in (0, 1]"},
		{[]string{"hog", "--cpu", "5000", "0.5"}, "--cpu 5000", "want a CPU number"},
		{[]string{"version", "extra"}, `version takes no arguments but --tasks, got "extra"`, "tsys version --tasks"},
		{[]string{"version", "--task"}, "flag provided but not defined: -task", "tsys version --help"},

		// The lab's verbs.
		{[]string{"bench", "extra"}, `bench: unexpected argument "extra"`, "tsys bench --help"},
		{[]string{"bench", "--bogus"}, "flag provided but not defined: -bogus", "tsys bench --help"},
		{[]string{"bench", "--preset", "nope"}, `unknown preset "nope"`, "want one of readme"},
		{[]string{"bench", "--reps", "0"}, "--reps 0", "want at least 1"},
		{[]string{"bench", "--nodes", "0"}, `--nodes "0"`, "want positive whole numbers"},
		{[]string{"sim", "extra"}, `sim: unexpected argument "extra"`, "tsys sim --help"},
		{[]string{"sim", "--nodes", "0"}, `--nodes "0"`, "want positive whole numbers"},
		{[]string{"sim", "--workers", "0"}, "--workers 0", "want at least 1"},
		{[]string{"sim", "--app", "nope"}, `--app "nope": unknown workload`, "want ep, fib"},
		{[]string{"sim", "--sched", "nope"}, `unknown scheduler "nope"`, "want local, fishing"},
		{[]string{"sim", "--speed", "x"}, `--speed "x"`, "want positive numbers"},
		{[]string{"advise"}, "advise needs a program", "tsys advise PROGRAM"},
		{[]string{"advise", "nope"}, `unknown program "nope"`, "want one of ep, fib"},
		{[]string{"advise", "fib", "--bogus"}, "flag provided but not defined: -bogus", "tsys advise fib --help"},
		{[]string{"advise", "fib", "extra"}, `unexpected argument "extra"`, "tsys advise fib --help"},
		{[]string{"advise", "fib", "--nodes", "0"}, `--nodes "0"`, "want node counts of 1 or more"},
		{[]string{"advise-check", "extra"}, `advise-check: unexpected argument "extra"`, "tsys advise-check --help"},
		{[]string{"advise-check", "--reps", "0"}, "--reps 0", "want at least 1"},
	}
	for _, c := range cases {
		code, _, stderr := run(t, c.args...)
		msg := lastLine(stderr)
		if code != 2 || !strings.HasPrefix(msg, "tsys: ") || !strings.Contains(msg, c.msg) || !strings.Contains(msg, c.fix) {
			t.Errorf("tsys %s: exit %d, message %q; want exit 2 and a message naming %q and the fix %q", strings.Join(c.args, " "), code, msg, c.msg, c.fix)
		}
	}
}

// answerAtOnce listens on loopback and answers every connection with
// answer as soon as something arrives; it returns the address.
func answerAtOnce(t *testing.T, answer string) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				c.SetDeadline(time.Now().Add(10 * time.Second))
				if _, err := c.Read(make([]byte, 64)); err == nil {
					c.Write([]byte(answer))
				}
			}()
		}
	}()
	return ln.Addr().String()
}

// lastLine is the last line of what a command wrote on stderr: its
// error, after any usage it printed.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}

// TestNetworkFailureExits1: a network that fails (a seed or a node that
// refuses the connection) is a failure, exit 1, not a mistake on the
// command line: the same command line may work later.
func TestNetworkFailureExits1(t *testing.T) {
	for _, args := range [][]string{
		{"run", "fib", "--join", "127.0.0.1:1", "--join-timeout", "300ms"},
		{"drain", "127.0.0.1:1"},
		{"jobs", "127.0.0.1:1"},
	} {
		if code, _, stderr := run(t, args...); code != 1 || !strings.Contains(stderr, "connection refused") {
			t.Errorf("tsys %s: exit %d, %q; want exit 1 and the refused connection", strings.Join(args, " "), code, stderr)
		}
	}
}
