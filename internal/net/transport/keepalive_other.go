//go:build !linux

package transport

import "syscall"

// tuneRaw sets nothing: the options of keepalive.go are Linux's (the
// keep-alive, set through package net, is everywhere).
func tuneRaw(_, _ string, _ syscall.RawConn) error { return nil }

func setProgressOpts(uintptr) {}
