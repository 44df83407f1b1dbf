package main

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestRunsNodesDieWithIt: the node processes a --nodes run starts end when
// the run is killed (kill -9 lets it stop nothing), rather than serving
// no one for good.
func TestRunsNodesDieWithIt(t *testing.T) {
	run := exec.Command(tsysBin, "run", "uts", "--tree", "T3L", "--workers", "1", "--nodes", "2")
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { run.Wait(); close(exited) }()
	defer func() { run.Process.Kill(); <-exited }()
	var node int
	deadline := time.Now().Add(time.Minute)
	for node == 0 && time.Now().Before(deadline) {
		node = childOf(run.Process.Pid)
		time.Sleep(20 * time.Millisecond)
	}
	if node == 0 {
		t.Fatal("the run started no node process within a minute")
	}
	if err := run.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-exited
	for alive(node) {
		if time.Now().After(deadline.Add(time.Minute)) {
			syscall.Kill(node, syscall.SIGKILL)
			t.Fatalf("node process %d still runs after its run was killed", node)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// childOf is a child process of pid, or 0: Linux lists a process's
// children under the thread that started each (/proc/PID/task/TID/children).
func childOf(pid int) int {
	dir := "/proc/" + strconv.Itoa(pid) + "/task/"
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	for _, task := range tasks {
		b, err := os.ReadFile(dir + task.Name() + "/children")
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(f); err == nil {
				return n
			}
		}
	}
	return 0
}

// alive reports whether process pid runs, a zombie counting as ended.
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}
