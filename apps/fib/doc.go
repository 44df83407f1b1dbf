// Package fib is the classic finest-grained divide and conquer: fib(n) as
// fib(n-1) + fib(n-2), one spawn per call. It measures nothing but the
// runtime's own cost per spawn, which is why it is the test of load-based
// inlining. Task is the natural code with Fork and Join, registered by the
// name of the fast clone go generate writes from it (cmd/tsysclone);
// Forking is the same code registered as it is, with no clone, and Plain
// uses Spawn and Get.
package fib
