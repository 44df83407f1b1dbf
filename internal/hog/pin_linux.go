package hog

import (
	"fmt"
	"os"
	"strconv"
	"syscall"
	"unsafe"
)

// Pin confines every thread of this process to CPU cpu. Threads made later
// inherit the mask of the thread that makes them, so the whole process
// stays there.
func Pin(cpu int) error {
	if cpu < 0 || cpu >= 1024 {
		return fmt.Errorf("--cpu %d: want a CPU number from 0 to %d", cpu, 1023)
	}
	var mask [1024 / 64]uint64
	mask[cpu/64] = 1 << (cpu % 64)
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return fmt.Errorf("pinning to CPU %d: %w", cpu, err)
	}
	for _, t := range tasks {
		tid, err := strconv.Atoi(t.Name())
		if err != nil {
			continue
		}
		_, _, errno := syscall.RawSyscall(syscall.SYS_SCHED_SETAFFINITY, uintptr(tid), unsafe.Sizeof(mask), uintptr(unsafe.Pointer(&mask)))
		if errno != 0 && errno != syscall.ESRCH { // ESRCH: the thread ended meanwhile
			return fmt.Errorf("pinning to CPU %d: %w", cpu, errno)
		}
	}
	return nil
}
