package nqueens

import "github.com/tsys-go/tsys/tsys"

// Forking and Spawning are the same search written the natural way, with
// no fast clone: every placement is a Fork (or a Spawn), and the inlining
// policy alone decides which run as plain calls. They measure what natural
// code costs against Task's generated fast clone (bench/README.md,
// "Natural code").
var Forking, Spawning *tsys.Task[Board, int64]

func init() {
	Forking = tsys.Register("nqueens.forking", forking)
	Spawning = tsys.Register("nqueens.spawning", spawning)
}

func forking(c *tsys.Ctx, b Board) int64 {
	if b.Cols == b.All {
		return 1
	}
	var forks [MaxN]tsys.Forked[int64]
	k := 0
	for free := b.free(); free != 0; free &= free - 1 {
		forks[k] = Forking.Fork(c, b.next(free&-free))
		k++
	}
	var total int64
	for k > 0 { // newest first
		k--
		total += forks[k].Join(c)
	}
	return total
}

func spawning(c *tsys.Ctx, b Board) int64 {
	if b.Cols == b.All {
		return 1
	}
	var futures [MaxN]tsys.Future[int64]
	k := 0
	for free := b.free(); free != 0; free &= free - 1 {
		futures[k] = Spawning.Spawn(c, b.next(free&-free))
		k++
	}
	var total int64
	for k > 0 {
		k--
		total += futures[k].Get(c)
	}
	return total
}
