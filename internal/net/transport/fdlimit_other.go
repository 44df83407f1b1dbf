//go:build !unix

package transport

// fileLimit is how many files the process may hold open, or 0 if unknown.
func fileLimit() int { return 0 }
