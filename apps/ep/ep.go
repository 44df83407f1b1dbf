package ep

import "math"

// Generator constants (NPB's randlc/vranlc linear congruential generator).
const (
	// A is the multiplier a = 5^13.
	A = 1220703125
	// Seed is x_0; it is never itself turned into a uniform.
	Seed = 271828183
	// modBits is the modulus exponent: x_{j+1} = a*x_j mod 2^46.
	modBits = 46
	mask    = 1<<modBits - 1
	// a2 is a^2 mod 2^46.
	a2 = A * A & mask

	// BatchPairs is NK, the number of pairs in one batch.
	BatchPairs = 1 << 16
	// batchLog is log2(BatchPairs).
	batchLog = 16

	// chunkPairs is how many pairs the kernel handles per pass (see
	// kernel); the results do not depend on it.
	chunkPairs = 1 << 8
)

// scale is 2^-46, turning a 46-bit state into a uniform in [0, 1).
var scale = math.Ldexp(1, -modBits)

// mulMod returns x*y mod 2^46. Both operands are below 2^46; the uint64
// product wraps mod 2^64, which 2^46 divides, so the low 46 bits are exact.
func mulMod(x, y uint64) uint64 { return x * y & mask }

// powMod returns b^e mod 2^46 by binary exponentiation.
func powMod(b uint64, e uint64) uint64 {
	r := uint64(1)
	b &= mask
	for e > 0 {
		if e&1 != 0 {
			r = mulMod(r, b)
		}
		b = mulMod(b, b)
		e >>= 1
	}
	return r
}

// an is a^(2*NK) mod 2^46 (a squared batchLog+1 times): one batch's stride
// through the stream.
var an = func() uint64 {
	t := uint64(A)
	for i := 0; i <= batchLog; i++ {
		t = mulMod(t, t)
	}
	return t
}()

// BatchStart returns the generator state from which batch kk starts:
// x_0 * an^kk mod 2^46. The batch's first uniform is derived from
// a*BatchStart(kk), i.e. the state x_{2*NK*kk+1}.
func BatchStart(kk int) uint64 {
	return mulMod(Seed, powMod(an, uint64(kk)))
}

// Batches runs batches [lo, hi) and returns their merged result. Each
// batch finds its own start by jump-ahead, so any range can run anywhere;
// per-batch sums are added into the total in increasing batch order.
// An empty or inverted range gives the zero Result.
func Batches(lo, hi int) Result {
	var r Result
	if lo < 0 {
		lo = 0
	}
	for kk := lo; kk < hi; kk++ {
		kernel(BatchStart(kk), &r)
	}
	return r
}

// Serial runs class c's whole problem on the calling goroutine: the plain
// serial baseline (T_S). It allocates nothing.
func Serial(c Class) Result {
	return Batches(0, c.Batches())
}

// kernel runs one batch of BatchPairs pairs starting from state x (the
// batch's first uniform is a*x) and adds its sums and counts to r. The
// batch's sums are accumulated locally, in pair order, and added to r once.
//
// The batch is processed chunkPairs pairs at a time in three passes over a
// small stack buffer (about 6 KiB of frame in all):
//
//  1. generate the chunk's pairs in stream order and keep only those with
//     t <= 1, compacted to the front of buf (branch-free);
//  2. take ln t of each kept pair;
//  3. finish each kept pair and tally it.
//
// Splitting out pass 2 matters most: math.Log is an out-of-line call, and
// Go's calling convention makes every live register be spilled around it,
// so a loop containing the call cannot keep its sums and counts in
// registers. l is computed without branches as int(f*max(|x1|,|x2|)),
// which equals int(max(|X|,|Y|)) exactly since |x1*f| = |x1|*f and
// rounding is monotonic. None of this changes a floating-point operation
// or their order, so the results are bit-identical to the direct
// definition (ep_test.go checks this).
//
// The three passes with two generator chains are the fastest of the
// shapes tried (BenchmarkBatch; bench/README.md, "Figures behind the
// code's constants").
//
// Never inlined: a batch is coarse, and the tsys command's profile-guided
// build (cmd/tsys/default.pgo) would otherwise inline it into Batches
// (bench/README.md, "Profile-guided optimisation").
//
//go:noinline
func kernel(x uint64, r *Result) {
	var buf [2 * chunkPairs]float64 // x1, x2 of the kept pairs
	var lnt [chunkPairs]float64     // ln t of the kept pairs
	var q [10]int64
	sx, sy := 0.0, 0.0
	// The odd and even states x_{2p-1}, x_{2p} advance as two independent
	// chains with stride a^2, halving the multiply latency per pair.
	xo := x * A & mask
	xe := xo * A & mask
	for range BatchPairs / chunkPairs {
		// Pass 1: each pair is stored at slot n, which only advances when
		// the pair is kept; masking the index (n < chunkPairs always)
		// drops the bounds checks.
		n := 0
		for range chunkPairs {
			x1 := 2*(float64(xo)*scale) - 1
			x2 := 2*(float64(xe)*scale) - 1
			xo = xo * a2 & mask
			xe = xe * a2 & mask
			buf[2*n&(len(buf)-1)] = x1
			buf[(2*n+1)&(len(buf)-1)] = x2
			if x1*x1+x2*x2 <= 1 {
				n++
			}
		}
		kept, logs := buf[:2*n], lnt[:n]
		// Pass 2.
		for i := range logs {
			x1, x2 := kept[2*i], kept[2*i+1]
			logs[i] = math.Log(x1*x1 + x2*x2)
		}
		// Pass 3.
		for i, lt := range logs {
			x1, x2 := kept[2*i], kept[2*i+1]
			t := x1*x1 + x2*x2
			f := math.Sqrt(-2 * lt / t)
			// max(|X|,|Y|) < 10 for every pair of the real stream; the
			// clamp only keeps an impossible input from panicking.
			l := min(int(max(math.Abs(x1), math.Abs(x2))*f), len(q)-1)
			q[l]++
			sx += x1 * f
			sy += x2 * f
		}
	}
	r.Sx += sx
	r.Sy += sy
	for i := range q {
		r.Q[i] += q[i]
	}
}
