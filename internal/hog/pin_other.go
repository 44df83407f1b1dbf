//go:build !linux

package hog

import "fmt"

// Pin confines the process to one CPU; only Linux is supported.
func Pin(cpu int) error { return fmt.Errorf("--cpu %d: pinning a node to a CPU needs Linux", cpu) }
