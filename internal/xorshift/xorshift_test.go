package xorshift

import "testing"

func TestSameSeedSameSequence(t *testing.T) {
	a, b := Seed(7), Seed(7)
	for i := 0; i < 100; i++ {
		if a.Next() != b.Next() {
			t.Fatalf("draw %d differs", i)
		}
	}
}

func TestBelowSpreadsEvenly(t *testing.T) {
	for _, seed := range []uint64{0, 1, 42, 1 << 63} {
		s := Seed(seed)
		var counts [5]int
		const draws = 50000
		for i := 0; i < draws; i++ {
			counts[s.Below(len(counts))]++
		}
		for v, c := range counts {
			if c < draws/5*9/10 || c > draws/5*11/10 {
				t.Errorf("seed %d: value %d drawn %d times of %d, want about %d", seed, v, c, draws, draws/5)
			}
		}
	}
}
