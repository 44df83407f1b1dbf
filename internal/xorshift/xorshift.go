package xorshift

// State is one xorshift64* generator. Its zero value is not a valid state:
// make one with Seed. It is not safe for concurrent use; give each user
// (each worker, each policy) its own.
type State struct{ x uint64 }

// Seed makes a generator from any seed (the same seed, the same sequence).
func Seed(seed uint64) State {
	x := seed*0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019
	if x == 0 {
		x = 1
	}
	return State{x: x}
}

// Next returns the next 64 random bits.
func (s *State) Next() uint64 {
	x := s.x
	x ^= x >> 12
	x ^= x << 25
	x ^= x >> 27
	s.x = x
	return x * 2685821657736338717
}

// Below returns a number in [0, n); n must be positive.
func (s *State) Below(n int) int { return int(s.Next() % uint64(n)) }
