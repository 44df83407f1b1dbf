// Package ep is the NAS Parallel Benchmarks EP ("embarrassingly
// parallel") kernel: generate pairs of uniform random numbers, turn the
// pairs that fall in the unit disc into Gaussian deviates by the Marsaglia
// polar method, and tally them.
//
// # Definition
//
// A class has 2^M candidate pairs (M = 24, 25, 28, 30, 32 for classes S, W,
// A, B, C), taken from a single stream
//
//	x_{j+1} = a*x_j mod 2^46,  a = 5^13 = 1220703125,  x_0 = 271828183,
//	u_j = x_j * 2^-46   (j >= 1; x_0 itself is never used).
//
// Pair p (p = 1 .. 2^M) is (u_{2p-1}, u_{2p}). With x1 = 2u_{2p-1}-1,
// x2 = 2u_{2p}-1 and t = x1^2+x2^2, a pair with t <= 1 is accepted:
// f = sqrt(-2 ln t / t), X = x1*f, Y = x2*f, and with l = int(max(|X|,|Y|))
// the annulus count Q[l] is incremented and X, Y are added to the sums sx,
// sy. The run is verified when sx and sy each match the class's reference
// to a relative 1e-8.
//
// # Batches and the task version
//
// The pairs are cut into batches of BatchPairs = NK = 2^16 pairs; a class
// has 2^(M-16) batches. Batch kk starts from state x_0 * an^kk mod 2^46
// with an = a^(2*NK) mod 2^46, computed by binary exponentiation (at most
// M-16 squarings), so a batch needs nothing from any other batch: its
// first uniform is a times that start state. Results do not depend on the
// batch size, only the jump-ahead stride does.
//
// Batches(lo, hi) runs any range of batches and returns a fixed-size
// Result; Result.Add merges two. A parallel runtime bisects [0, Batches())
// recursively into a binary tree of tasks whose leaves call Batches on one
// or a few batches and whose inner nodes Add their children. Counts merge
// exactly; the floating-point sums depend on the merge order only in the
// last few ulps, far inside the 1e-8 verification tolerance.
//
// Serial is the plain serial baseline: every batch in order on one
// goroutine, with no allocation.
package ep
