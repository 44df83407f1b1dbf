package hog

import (
	"os"
	"strings"
	"testing"
)

// TestPinConfinesEveryThread: after Pin, every thread of the process may
// run on that CPU only.
func TestPinConfinesEveryThread(t *testing.T) {
	if err := Pin(0); err != nil {
		t.Fatal(err)
	}
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Fatal(err)
	}
	for _, task := range tasks {
		b, err := os.ReadFile("/proc/self/task/" + task.Name() + "/status")
		if err != nil {
			continue // the thread ended
		}
		if !strings.Contains(string(b), "Cpus_allowed_list:\t0\n") {
			t.Errorf("thread %s is not confined to CPU 0", task.Name())
		}
	}
	if err := Pin(-1); err == nil {
		t.Error("Pin(-1) accepted")
	}
}
