package netem

import (
	"fmt"
	"math/rand/v2"
	"time"
)

// Shape is what the network does to every packet.
type Shape struct {
	// Delay is each packet's mean one-way delay, and Jitter how far from
	// it a packet's own delay may fall, uniformly either side.
	Delay, Jitter time.Duration
	// Loss is the probability, 0 to 1, that a packet is dropped.
	Loss float64
}

// Validate says what is wrong with s, if anything.
func (s Shape) Validate() error {
	switch {
	case s.Delay < 0 || s.Jitter < 0:
		return fmt.Errorf("netem: a delay of %v +- %v: neither may be negative", s.Delay, s.Jitter)
	case s.Jitter > s.Delay:
		return fmt.Errorf("netem: a jitter of %v exceeds the delay of %v: a packet would leave before it came", s.Jitter, s.Delay)
	case s.Loss < 0 || s.Loss > 1:
		return fmt.Errorf("netem: a loss of %v: want a probability from 0 to 1", s.Loss)
	}
	return nil
}

// A Verdict is what becomes of one packet.
type Verdict int

const (
	Deliver Verdict = iota // at the time Decide returns
	Lost                   // dropped at the loss rate
	CutOff                 // dropped: its source or destination is cut off
)

// Policy decides each packet's fate between n hosts. It is not safe for
// concurrent use: the Emulator holds a lock around it.
type Policy struct {
	shape Shape
	cut   []bool
	rng   *rand.Rand
	// last is when the previous packet of each (from, to) pair leaves:
	// the next leaves no sooner, which keeps a flow's order.
	last map[[2]int]time.Time
}

// NewPolicy is a Policy for n hosts with shape s, drawing from a
// generator seeded with seed (a run is repeatable).
func NewPolicy(n int, s Shape, seed uint64) (*Policy, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return &Policy{shape: s, cut: make([]bool, n), rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), last: map[[2]int]time.Time{}}, nil
}

// SetShape changes the shape from the next packet on.
func (p *Policy) SetShape(s Shape) error {
	if err := s.Validate(); err != nil {
		return err
	}
	p.shape = s
	return nil
}

// SetCut cuts host i off (everything to or from it is dropped) or, with
// cut false, joins it again.
func (p *Policy) SetCut(i int, cut bool) { p.cut[i] = cut }

// Decide is the fate of a packet from host from to host to that arrives
// at now, and when it leaves if it is delivered.
func (p *Policy) Decide(now time.Time, from, to int) (Verdict, time.Time) {
	if p.cut[from] || p.cut[to] {
		return CutOff, time.Time{}
	}
	if p.shape.Loss > 0 && p.rng.Float64() < p.shape.Loss {
		return Lost, time.Time{}
	}
	d := p.shape.Delay
	if j := p.shape.Jitter; j > 0 {
		d += time.Duration(p.rng.Int64N(int64(2*j)+1)) - j
	}
	at := now.Add(d)
	pair := [2]int{from, to}
	if l := p.last[pair]; at.Before(l) {
		at = l
	}
	p.last[pair] = at
	return Deliver, at
}
