package advise

import "math"

// MasterWorker is Cesar et al.'s model of one iteration of a master/worker
// computation with asynchronous sends. Times are in seconds, volumes in
// bytes.
type MasterWorker struct {
	Startup float64 // mo: a message's start-up cost
	PerByte float64 // k: a message's cost per byte
	Volume  float64 // V: the bytes the iteration sends
	Compute float64 // Tc: the iteration's total computation
	Prepare float64 // lm: the master's preparation
}

// Time is Tt(n) = (n+1) mo + (Tc + kV)/n + lm, the iteration's time on n
// workers.
func (m MasterWorker) Time(n int) float64 {
	return float64(n+1)*m.Startup + (m.Compute+m.PerByte*m.Volume)/float64(n) + m.Prepare
}

// Optimum is sqrt((Tc + kV)/mo), the real n that minimises Time; +Inf when
// messages cost nothing to start.
func (m MasterWorker) Optimum() float64 {
	if m.Startup <= 0 {
		return math.Inf(1)
	}
	return math.Sqrt((m.Compute + m.PerByte*m.Volume) / m.Startup)
}

// Efficiency is E(n) = Tc / (n Tt(n)).
func (m MasterWorker) Efficiency(n int) float64 {
	return m.Compute / (float64(n) * m.Time(n))
}

// Index is the performance index Pi(n) = n Tt(n)² / Tc, which weighs the
// time gained against the workers spent on it: its minimum is the count a
// shared pool should grant.
func (m MasterWorker) Index(n int) float64 {
	t := m.Time(n)
	return float64(n) * t * t / m.Compute
}

// FastestWorkers is the worker count in [1, max] of least Time.
func (m MasterWorker) FastestWorkers(max int) int { return argmin(max, m.Time) }

// ThriftiestWorkers is the worker count in [1, max] of least Index.
func (m MasterWorker) ThriftiestWorkers(max int) int { return argmin(max, m.Index) }

// argmin returns the n in [1, max] of least f(n), the smallest on a tie.
func argmin(max int, f func(int) float64) int {
	best, at := math.Inf(1), 1
	for n := 1; n <= max; n++ {
		if v := f(n); v < best {
			best, at = v, n
		}
	}
	return at
}
