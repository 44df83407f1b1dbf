package clusterpolicy

import (
	"math"
	"time"
)

// RateMeter turns a node's growing busy time (Port.BusyTime) into Load.Rate:
// busy worker-seconds per second, smoothed over about its time constant so
// that one long task or one short gap does not swing the signal. It is fed
// the time by its caller and reads no clock, so a simulator drives it the
// same way. Not safe for concurrent use.
type RateMeter struct {
	// Tau is the smoothing time constant (DefaultRateTau when zero).
	Tau time.Duration

	last     time.Time
	lastBusy time.Duration
	rate     float64
	primed   bool
}

// DefaultRateTau smooths over a few gossip rounds (the node gossips its
// load every 100 ms): long enough to span task-length gaps of the apps,
// short enough that a node's slowdown shows within a fraction of a second.
const DefaultRateTau = 200 * time.Millisecond

// Observe records that the workers had been busy for busy in total by now,
// and returns the smoothed rate. A busy time that went down (a new run
// began) restarts the measurement without disturbing the rate.
func (m *RateMeter) Observe(now time.Time, busy time.Duration) float64 {
	tau := m.Tau
	if tau <= 0 {
		tau = DefaultRateTau
	}
	if !m.primed || busy < m.lastBusy || !now.After(m.last) {
		if !m.primed || busy < m.lastBusy {
			m.last, m.lastBusy, m.primed = now, busy, true
		}
		return m.rate
	}
	dt := now.Sub(m.last)
	instant := float64(busy-m.lastBusy) / float64(dt)
	// An exponential moving average in continuous time: the weight of the
	// new sample grows with the time it covers, so irregular ticks filter
	// alike.
	alpha := 1 - math.Exp(-float64(dt)/float64(tau))
	m.rate += alpha * (instant - m.rate)
	m.last, m.lastBusy = now, busy
	return m.rate
}

// Rate returns the last smoothed rate.
func (m *RateMeter) Rate() float64 { return m.rate }

// UsefulWork accumulates the work a node really did: in each interval
// between readings, its workers' busy time, but no more than the CPU time
// the process got. A worker that shares its core with a competing process
// is busy the whole time and does half the work; CPU time alone would count
// the runtime's own threads of an idle node. Feed RateMeter its Total.
type UsefulWork struct {
	lastBusy, lastCPU time.Duration
	total             time.Duration
	primed            bool
}

// Add takes cumulative readings of busy time and process CPU time (cpuOK
// false: the platform gives none, and busy time counts alone) and returns
// the useful work so far. Readings that go down (a new run) start the
// intervals over.
func (u *UsefulWork) Add(busy, cpu time.Duration, cpuOK bool) time.Duration {
	if !cpuOK {
		cpu = u.lastCPU // unknown: it does not limit the interval
	}
	if !u.primed || busy < u.lastBusy || cpu < u.lastCPU {
		u.lastBusy, u.lastCPU, u.primed = busy, cpu, true
		return u.total
	}
	d := busy - u.lastBusy
	if cpuOK {
		d = min(d, cpu-u.lastCPU)
	}
	u.total += d
	u.lastBusy, u.lastCPU = busy, cpu
	return u.total
}

// TaskTimeMeter estimates what a task is worth: the useful time per task
// run, over windows of at least Window, smoothed. Fed the time by its
// caller; not safe for concurrent use.
type TaskTimeMeter struct {
	// Window is the shortest span a sample covers (DefaultRateTau when 0).
	Window time.Duration

	since            time.Time
	useful0          time.Duration
	tasks0           int64
	estimate         time.Duration
	primed, measured bool
}

// Observe takes cumulative useful time and tasks run, and returns the
// estimate (0 until a window has seen tasks). Counts that go down (a new
// run) start a new window.
func (m *TaskTimeMeter) Observe(now time.Time, useful time.Duration, tasks int64) time.Duration {
	window := m.Window
	if window <= 0 {
		window = DefaultRateTau
	}
	if !m.primed || useful < m.useful0 || tasks < m.tasks0 {
		m.since, m.useful0, m.tasks0, m.primed = now, useful, tasks, true
		return m.estimate
	}
	if now.Sub(m.since) < window || tasks == m.tasks0 {
		return m.estimate
	}
	sample := (useful - m.useful0) / time.Duration(tasks-m.tasks0)
	if m.measured {
		m.estimate = (m.estimate + sample) / 2
	} else {
		m.estimate, m.measured = sample, true
	}
	m.since, m.useful0, m.tasks0 = now, useful, tasks
	return m.estimate
}
