//go:build amd64 || arm64

package goroutine

// Supported reports whether Current tells goroutines apart here.
const Supported = true

// Current returns the calling goroutine's identity (see the package doc).
//
//go:noescape
func Current() uintptr
