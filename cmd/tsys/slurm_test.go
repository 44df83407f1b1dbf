package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tsys-go/tsys/internal/median"
	"github.com/tsys-go/tsys/internal/proctest"
	"github.com/tsys-go/tsys/internal/slurmtest"
)

// TestSLURM runs tsys under a real SLURM of three nodes, started once for
// its subtests: srun makes one cluster from its step with no address
// typed; the batch scripts of deploy/slurm run one job, and a cluster of
// nodes that three jobs run on; a rank killed mid-run loses nothing;
// scancel drains the nodes with nothing lost; two jobs share the hosts;
// a multi-node job started without srun is told so.
func TestSLURM(t *testing.T) {
	c := slurmtest.Start(t, 3, 2)
	t.Run("srun", func(t *testing.T) {
		// Two CPUs a task: two workers a rank.
		out, stderr, err := slurmRun(t, c, "srun", "-N", "3", "-n", "3", "--cpus-per-task=2", tsysBin, "run", "uts", "--tree", "T1", "--json")
		if err != nil {
			t.Fatalf("srun: %v\n%s", err, stderr)
		}
		reports := jsonLines(t, out)
		if len(reports) != 1 {
			t.Fatalf("want the result printed once, by rank 0; got %d objects:\n%s", len(reports), out)
		}
		checkLaunched(t, reports[0], 3)
		for _, pn := range proctest.PerNode(reports[0]) {
			if pn["workers"] != float64(2) {
				t.Errorf("%v runs %v workers, want SLURM_CPUS_PER_TASK's 2", pn["node"], pn["workers"])
			}
		}
	})
	t.Run("sbatch one job", func(t *testing.T) {
		out := sbatch(t, c, "../../deploy/slurm/job.sbatch", "TREE=T1")
		reports := jsonLines(t, out)
		if len(reports) != 1 {
			t.Fatalf("the output file holds %d results, want 1:\n%s", len(reports), out)
		}
		checkLaunched(t, reports[0], 3)
	})
	t.Run("sbatch a cluster for three jobs", func(t *testing.T) {
		out := sbatch(t, c, "../../deploy/slurm/cluster.sbatch", "TREES=T1 T3 T1")
		reports := jsonLines(t, out)
		if len(reports) != 3 {
			t.Fatalf("the output file holds %d results, want 3:\n%s", len(reports), out)
		}
		for _, r := range reports {
			if r["verified"] != true || r["nodes"].(float64) < 2 {
				t.Errorf("a job on the cluster: verified %v on %v nodes\n%s", r["verified"], r["nodes"], out)
			}
		}
	})
	t.Run("a rank killed mid-run", func(t *testing.T) {
		cmd := c.Command(0, "srun", "-N", "3", "-n", "3", tsysBin, "run", "ep", "--class", "A", "--workers", "1", "--json")
		var stdout, stderr proctest.LockedBuffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Rank 2, once its job has run a moment.
		pid := waitRank(t, 2, "ep", 20*time.Second)
		time.Sleep(time.Second)
		syscall.Kill(pid, syscall.SIGKILL)
		err := waitTimeout(t, cmd, proctest.JobTimeout)
		reports := jsonLines(t, stdout.Bytes())
		if len(reports) != 1 || reports[0]["verified"] != true {
			t.Fatalf("with rank 2 killed, rank 0 printed %d results: %s\nsrun: %v\n%s", len(reports), stdout.String(), err, stderr.String())
		}
		if err == nil {
			t.Errorf("srun exited 0 with a task killed")
		}
	})
	t.Run("scancel drains the nodes", func(t *testing.T) {
		// The nodes (step 0) take SIGUSR1, as --signal=USR1@60 sends it
		// ahead of the time limit, while a job runs on them: they hand
		// back what they have not started, finish what they have, and
		// exit 0; the job ends right on its root. (SIGTERM drains them
		// at the end of cluster.sbatch above.)
		script := fmt.Sprintf(`#!/bin/bash
srun %[1]s node &
nodes=$!
sleep 1
%[1]s run ep --class A --workers 1 --join slurm --json &
job=$!
sleep 1
scancel --signal=USR1 "$SLURM_JOB_ID.0"
wait "$nodes"; echo "nodes exited $?"
wait "$job"; echo "job exited $?"
`, tsysBin)
		out := sbatchScript(t, c, script)
		reports := jsonLines(t, out)
		if len(reports) != 1 || reports[0]["verified"] != true || !strings.Contains(string(out), "nodes exited 0") || !strings.Contains(string(out), "job exited 0") {
			t.Fatalf("drained mid-job:\n%s", out)
		}
		// Mid-job: some node handed back or finished a task as it left.
		if !regexp.MustCompile(`drained; leaving the cluster" .*(returned=[1-9]|finished=[1-9])`).Match(out) {
			t.Errorf("no node held a task of the job when it drained:\n%s", out)
		}
	})
	t.Run("two jobs at once", func(t *testing.T) {
		var wg sync.WaitGroup
		for i := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				out, stderr, err := slurmRun(t, c, "srun", "-N", "3", "-n", "3", tsysBin, "run", "uts", "--tree", "T1", "--json")
				if err != nil {
					t.Errorf("job %d: %v\n%s", i, err, stderr)
					return
				}
				for _, r := range jsonLines(t, out) {
					checkLaunched(t, r, 3)
				}
			}()
		}
		wg.Wait()
	})
	t.Run("without srun", func(t *testing.T) {
		out := sbatchScript(t, c, fmt.Sprintf("#!/bin/bash\n%s run uts --tree T1\necho \"exit $?\"\n", tsysBin))
		if !strings.Contains(string(out), "outside srun") || !strings.Contains(string(out), "exit 2") {
			t.Fatalf("a 3-node job run without srun:\n%s", out)
		}
	})
	t.Run("bad variables exit 2", func(t *testing.T) {
		_, stderr, err := slurmRun(t, c, "srun", "-N", "3", "-n", "3", "env", "SLURM_PROCID=x", tsysBin, "run", "uts", "--tree", "T1")
		if code := exitCode(err); code != 2 || !strings.Contains(stderr, `SLURM_PROCID="x"`) {
			t.Fatalf("exit %d:\n%s", code, stderr)
		}
	})
	t.Run("mpirun", func(t *testing.T) {
		if _, err := exec.LookPath("mpirun"); err != nil {
			slurmtest.Cannot(t, "no mpirun (Debian: apt-get install openmpi-bin)")
		}
		cmd := exec.Command("mpirun", "--allow-run-as-root", "--oversubscribe", "-np", "3", tsysBin, "run", "uts", "--tree", "T1", "--json")
		cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+t.TempDir())
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := waitTimeout(t, startCmd(t, cmd), proctest.JobTimeout); err != nil {
			t.Fatalf("mpirun: %v\n%s", err, stderr.String())
		}
		reports := jsonLines(t, stdout.Bytes())
		if len(reports) != 1 {
			t.Fatalf("want one result, by rank 0; got %d:\n%s", len(reports), stdout.String())
		}
		checkLaunched(t, reports[0], 3)
	})
}

// checkLaunched fails the test unless a launched job's report is
// verified, on size ranks named by rank.
func checkLaunched(t *testing.T, r map[string]any, size int) {
	t.Helper()
	if r["verified"] != true || r["nodes"] != float64(size) {
		t.Fatalf("verified %v on %v nodes, want %d", r["verified"], r["nodes"], size)
	}
	for i, pn := range proctest.PerNode(r) {
		if !strings.HasPrefix(pn["node"].(string), fmt.Sprintf("rank%d@", i)) {
			t.Errorf("node %d is named %v", i, pn["node"])
		}
	}
	l, _ := r["launch"].(map[string]any)
	if l["ranks"] != float64(size) || l["launcher"] == "" || l["ready_seconds"].(float64) <= 0 || l["began_unix_ns"].(float64) <= 0 {
		t.Errorf("launch = %v", l)
	}
}

// BenchmarkSLURMLaunch times, on three SLURM nodes, how long srun takes
// to have the first task running on every rank of UTS T1L (from srun's
// start to the latest rank's first task: the job's beginning on rank 0's
// clock, where the root task runs, plus each other rank's
// first_work_ns), and the job under srun against
// the same job started by hand (two tsys node processes and tsys run
// --join), run alternately, each rank and node with one worker:
//
//	go test -run XXX -bench SLURMLaunch -benchtime 5x ./cmd/tsys
func BenchmarkSLURMLaunch(b *testing.B) {
	c := slurmtest.Start(b, 3, 2)
	key := filepath.Join(b.TempDir(), "key")
	os.WriteFile(key, []byte("a key for the nodes started by hand"), 0o600)
	var seed string
	for i := 1; i < 3; i++ {
		args := []string{"node", "--bind", c.Addrs[i] + ":7946", "--key-file", key, "--workers", "1", "--log-level", "warn"}
		if c.Addrs[i] == "127.0.0.1" { // no namespaces: a port each
			args[2] = "127.0.0.1:0"
		}
		if seed != "" {
			args = append(args, "--join", seed)
		}
		n, err := proctest.StartNode(b, c.Command(i, tsysBin, args...))
		if err != nil {
			b.Fatal(err)
		}
		if seed == "" {
			seed = n.Gossip
		}
	}
	var first, srunWall, handWall []float64
	for range b.N {
		t0 := time.Now()
		out, stderr, err := benchRun(b, c, "srun", "-N", "3", "-n", "3", tsysBin, "run", "uts", "--tree", "T1L", "--json")
		if err != nil {
			b.Fatalf("srun: %v\n%s", err, stderr)
		}
		began := out["launch"].(map[string]any)["began_unix_ns"].(float64)
		latest := began
		for _, pn := range proctest.PerNode(out)[1:] { // rank 0 runs the root task as the job begins
			if fw, ok := pn["first_work_ns"].(float64); ok {
				latest = max(latest, began+fw)
			}
		}
		first = append(first, (latest-float64(t0.UnixNano()))/1e9)
		srunWall = append(srunWall, out["wall_seconds"].(float64))
		out, stderr, err = benchRun(b, c, tsysBin, "run", "uts", "--tree", "T1L", "--join", seed, "--bind", c.Addrs[0]+":0",
			"--key-file", key, "--workers", "1", "--min-nodes", "2", "--json")
		if err != nil {
			b.Fatalf("by hand: %v\n%s", err, stderr)
		}
		handWall = append(handWall, out["wall_seconds"].(float64))
	}
	b.ReportMetric(median.Of(first), "srun-to-first-task-s")
	b.ReportMetric(median.Of(srunWall), "srun-job-s")
	b.ReportMetric(median.Of(handWall), "by-hand-job-s")
	b.Logf("srun to the first task on every rank %.3v s; the job under srun %.3v s, by hand %.3v s", first, srunWall, handWall)
}

// benchRun runs a command on the first node and decodes its JSON.
func benchRun(b *testing.B, c *slurmtest.Cluster, name string, args ...string) (map[string]any, string, error) {
	cmd := c.Command(0, name, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, stderr.String(), err
	}
	var obj map[string]any
	err := json.Unmarshal(stdout.Bytes(), &obj)
	return obj, stderr.String(), err
}

// slurmRun runs a SLURM command on the first node and returns its output.
func slurmRun(t *testing.T, c *slurmtest.Cluster, name string, args ...string) ([]byte, string, error) {
	t.Helper()
	cmd := c.Command(0, name, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := waitTimeout(t, startCmd(t, cmd), proctest.JobTimeout)
	return stdout.Bytes(), stderr.String(), err
}

func startCmd(t *testing.T, cmd *exec.Cmd) *exec.Cmd {
	t.Helper()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd
}

// waitTimeout waits for cmd, failing the test after d (a lost task).
func waitTimeout(t *testing.T, cmd *exec.Cmd, d time.Duration) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(d):
		cmd.Process.Kill()
		<-done
		t.Fatalf("%v did not finish within %v", cmd.Args, d)
		return nil
	}
}

// sbatch submits script with extra variables, waits for the job, and
// returns its output file.
func sbatch(t *testing.T, c *slurmtest.Cluster, script string, env ...string) []byte {
	t.Helper()
	abs, err := filepath.Abs(script)
	if err != nil {
		t.Fatal(err)
	}
	outFile := filepath.Join(c.Dir, fmt.Sprintf("job-%d.out", time.Now().UnixNano()))
	cmd := c.Command(0, "sbatch", "--wait", "--output="+outFile, abs)
	cmd.Env = append(append(cmd.Env, "TSYS="+tsysBin), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err = waitTimeout(t, startCmd(t, cmd), proctest.JobTimeout)
	out, _ := os.ReadFile(outFile)
	if err != nil {
		t.Fatalf("sbatch %s: %v\n%s\noutput:\n%s", script, err, stderr.String(), out)
	}
	return out
}

// sbatchScript is sbatch of a script given as text.
func sbatchScript(t *testing.T, c *slurmtest.Cluster, text string) []byte {
	t.Helper()
	path := filepath.Join(t.TempDir(), "job.sh")
	if err := os.WriteFile(path, []byte("#!/bin/bash\n#SBATCH --nodes=3\n#SBATCH --ntasks-per-node=1\n"+strings.TrimPrefix(text, "#!/bin/bash\n")), 0o755); err != nil {
		t.Fatal(err)
	}
	return sbatch(t, c, path)
}

// jsonLines decodes every line of out that is a JSON object.
func jsonLines(t *testing.T, out []byte) []map[string]any {
	t.Helper()
	var objs []map[string]any
	s := bufio.NewScanner(bytes.NewReader(out))
	s.Buffer(nil, 1<<24)
	for s.Scan() {
		if line := bytes.TrimSpace(s.Bytes()); len(line) > 0 && line[0] == '{' {
			var obj map[string]any
			if err := json.Unmarshal(line, &obj); err != nil {
				t.Fatalf("%v: %s", err, line)
			}
			objs = append(objs, obj)
		}
	}
	return objs
}

// waitRank finds the process of rank of a launched job of app, started
// from this test's binary, waiting for it up to d.
func waitRank(t *testing.T, rank int, app string, d time.Duration) int {
	t.Helper()
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		procs, _ := filepath.Glob("/proc/[0-9]*")
		for _, p := range procs {
			if exe, _ := os.Readlink(p + "/exe"); exe != tsysBin {
				continue
			}
			env, _ := os.ReadFile(p + "/environ")
			cmdline, _ := os.ReadFile(p + "/cmdline")
			if bytes.Contains(append([]byte{0}, env...), []byte("\x00SLURM_PROCID="+strconv.Itoa(rank)+"\x00")) && bytes.Contains(cmdline, []byte("\x00"+app+"\x00")) {
				pid, _ := strconv.Atoi(filepath.Base(p))
				return pid
			}
		}
	}
	t.Fatalf("no rank %d of %s within %v", rank, app, d)
	return 0
}

// exitCode is a command's exit status (-1: it did not exit).
func exitCode(err error) int {
	if err == nil {
		return 0
	}
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	return -1
}

// TestLaunchedByVariables: three processes given TSYS_RANK, TSYS_SIZE
// and TSYS_ROOT (here a file rank 0 writes) make one cluster and print
// one verified result; a rank missing a variable exits 2, saying what
// to set.
func TestLaunchedByVariables(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), proctest.JobTimeout)
	defer cancel()
	outs := make([]bytes.Buffer, 3)
	errs := make([]bytes.Buffer, 3)
	var cmds []*exec.Cmd
	for rank := range 3 {
		// Every rank on this host: on its loopback network.
		cmd := exec.CommandContext(ctx, tsysBin, "run", "uts", "--tree", "T1", "--workers", "1", "--launch-network", "127.0.0.0/8", "--json")
		cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+dir, "TSYS_RANK="+strconv.Itoa(rank), "TSYS_SIZE=3", "TSYS_ROOT="+filepath.Join(dir, "root"))
		cmd.Stdout, cmd.Stderr = &outs[rank], &errs[rank]
		cmds = append(cmds, startCmd(t, cmd))
	}
	for rank, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("rank %d: %v\n%s", rank, err, errs[rank].String())
		}
	}
	if outs[1].Len()+outs[2].Len() > 0 {
		t.Errorf("ranks 1 and 2 printed: %q %q", outs[1].String(), outs[2].String())
	}
	reports := jsonLines(t, outs[0].Bytes())
	if len(reports) != 1 {
		t.Fatalf("rank 0 printed %q", outs[0].String())
	}
	checkLaunched(t, reports[0], 3)
	if _, err := os.Stat(filepath.Join(dir, "root")); err == nil {
		t.Error("rank 0 left its address file behind")
	}

	// Rank 0's port taken: a clear error, naming the way out.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	cmd := exec.Command(tsysBin, "run", "uts", "--tree", "T1", "--launch-network", "127.0.0.0/8")
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+dir, "TSYS_RANK=0", "TSYS_SIZE=2", "TSYS_ROOT="+l.Addr().String())
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "the port is taken") || !strings.Contains(string(out), "--launch-root :PORT") {
		t.Errorf("rank 0 on a taken port: %v\n%s", err, out)
	}

	for _, c := range []struct{ env, want string }{
		{"TSYS_RANK=1", "TSYS_SIZE is not set"},
		{"TSYS_RANK=1 TSYS_SIZE=2", "TSYS_ROOT is not set"},
		{"TSYS_RANK=2 TSYS_SIZE=2 TSYS_ROOT=h", "is not below"},
		{"OMPI_COMM_WORLD_RANK=0", "OMPI_COMM_WORLD_SIZE is not set"},
		{"JOB_COMPLETION_INDEX=0 TSYS_ROOT=j-0.s", "TSYS_SIZE is not set"},
		{"SLURM_JOB_ID=7 SLURM_NNODES=2", "outside srun"},
		{"SLURM_JOB_ID=7 SLURM_STEP_ID=0 SLURM_PROCID=1 SLURM_STEP_NUM_TASKS=2 SLURMD_NODENAME=n1 SLURM_STEP_NODELIST=n[1-99999999]", "start the program with srun"},
		{"XDG_CONFIG_HOME=" + dir + " SLURM_JOB_ID=7 SLURM_STEP_ID=0 SLURM_PROCID=1 SLURM_STEP_NUM_TASKS=2 SLURMD_NODENAME=localhost SLURM_STEP_NODELIST=localhost SLURM_CPUS_PER_TASK=100000000", "SLURM gave this rank"},
		// A rank would block reading a pipe there, or read a device without end.
		{"XDG_CONFIG_HOME=" + dir + " TSYS_RANK=1 TSYS_SIZE=2 TSYS_ROOT=" + dir, "not a regular file"},
	} {
		cmd := exec.Command(tsysBin, "run", "uts", "--tree", "T1", "--launch-network", "127.0.0.0/8")
		cmd.Env = append(os.Environ(), strings.Fields(c.env)...)
		out, err := cmd.CombinedOutput()
		if code := exitCode(err); code != 2 || !strings.Contains(string(out), c.want) {
			t.Errorf("%s: exit %d, want 2 saying %q:\n%s", c.env, code, c.want, out)
		}
	}
}

// startRanks starts size processes of `tsys run ARGS` as ranks given by
// TSYS_RANK, TSYS_SIZE and TSYS_ROOT, on this host's loopback network.
func startRanks(t *testing.T, size int, root string, args ...string) ([]*exec.Cmd, []*proctest.LockedBuffer) {
	t.Helper()
	dir := t.TempDir()
	var cmds []*exec.Cmd
	var errs []*proctest.LockedBuffer
	for rank := range size {
		cmd := exec.Command(tsysBin, append(append([]string{"run"}, args...), "--launch-network", "127.0.0.0/8")...)
		cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+dir, "TSYS_RANK="+strconv.Itoa(rank), "TSYS_SIZE="+strconv.Itoa(size), "TSYS_ROOT="+root)
		var stderr proctest.LockedBuffer
		cmd.Stderr = &stderr
		cmds, errs = append(cmds, startCmd(t, cmd)), append(errs, &stderr)
	}
	return cmds, errs
}

// TestLaunchedRanksEnd: every rank ends with the job's status: a job
// that fails on rank 0 fails every rank, and a rank whose rank 0 is
// killed ends, failed, rather than waiting for a job that is lost.
func TestLaunchedRanksEnd(t *testing.T) {
	root := freePort(t)
	cmds, errs := startRanks(t, 2, root, "ep", "--class", "A", "--workers", "1", "--timeout", "500ms")
	for rank, cmd := range cmds {
		if err := waitTimeout(t, cmd, proctest.JobTimeout); exitCode(err) != 1 {
			t.Errorf("a job that timed out: rank %d exited %v, want 1\n%s", rank, err, errs[rank])
		}
	}

	root = freePort(t)
	cmds, errs = startRanks(t, 2, root, "ep", "--class", "A", "--workers", "1")
	// Rank 0 killed mid-job (or, on a slow machine, before rank 1 joined
	// it: rank 1 then ends all the same, unable to join).
	time.Sleep(2 * time.Second)
	cmds[0].Process.Kill()
	cmds[0].Wait()
	err := waitTimeout(t, cmds[1], proctest.JobTimeout)
	if exitCode(err) != 1 || !strings.Contains(errs[1].String(), "rank 0") {
		t.Errorf("rank 1 with rank 0 killed: %v\n%s", err, errs[1])
	}
}
