// Package fib is the classic finest-grained divide and conquer: fib(n) as
// fib(n-1) + fib(n-2), one spawn per call. It measures nothing but the
// runtime's own cost per spawn, which is why it is the test of load-based
// inlining. Task is written with a hand-made fast clone (tsys.Ctx.AllowCCall);
// Forking is the natural code with Fork and Join, Plain with Spawn and Get.
package fib
