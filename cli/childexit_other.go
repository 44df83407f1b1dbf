//go:build !linux

package cli

import "syscall"

// childAttr is nil here: this platform has no signal for a parent's end,
// so a killed run's nodes outlive it.
func childAttr() *syscall.SysProcAttr { return nil }
