//go:build race

package tsys

// checkForks: under the race detector, Fork takes its checked path.
const checkForks = true
