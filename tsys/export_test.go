package tsys

import "time"

// SetChunkTarget sets the work an adaptive loop puts in a chunk, for
// BenchmarkLoopChunkTarget, and returns the old value. Not safe while a
// loop runs.
func SetChunkTarget(d time.Duration) time.Duration {
	old := chunkTarget
	chunkTarget = d
	return old
}
