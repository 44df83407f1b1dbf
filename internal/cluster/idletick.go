package cluster

import "time"

// tickClock is what the node's tick waits on. The tick stops it while the
// node has no job, and a job's arrival (jobTable.wake) starts it again: an
// idle node then wakes only for gossip and for what it is asked, rather
// than every TickEvery to measure a load that cannot change. Tests put a
// hand-driven one in its place (Config.newTicker).
type tickClock interface {
	C() <-chan time.Time
	Stop()
	Reset(d time.Duration)
}

// realTicker is a tickClock on a time.Ticker.
type realTicker struct{ t *time.Ticker }

func newRealTicker(d time.Duration) tickClock { return realTicker{time.NewTicker(d)} }

func (r realTicker) C() <-chan time.Time   { return r.t.C }
func (r realTicker) Stop()                 { r.t.Stop() }
func (r realTicker) Reset(d time.Duration) { r.t.Reset(d) }

// idleTick is the tick's part in keeping an idle node asleep: whether its
// clock runs, and how many times it woke.
type idleTick struct {
	clock   tickClock
	every   time.Duration
	running bool
}

// sleep stops the clock: the node has no job, and its load, now
// published, stays as it is until one comes.
func (it *idleTick) sleep() {
	if it.running {
		it.clock.Stop()
		it.running = false
	}
}

// wake starts the clock again, for a job that arrived.
func (it *idleTick) wake() {
	if !it.running {
		it.clock.Reset(it.every)
		it.running = true
	}
}
