//go:build !race

package tsys_test

const raceEnabled = false
