package fishing

import (
	"fmt"
	"time"
)

// Victim says how a fishing node chooses the peer it asks.
type Victim int

const (
	// Random asks a peer chosen uniformly among the eligible ones.
	Random Victim = iota
	// Load asks the eligible peer whose last load report showed the most
	// ready tasks.
	Load
	// Zone asks peers of the node's own zone first and keeps at most one
	// request to another zone in flight (Satin's cluster-aware random
	// stealing).
	Zone
)

// victimNames is indexed by Victim.
var victimNames = [...]string{Random: "random", Load: "load", Zone: "zone"}

// String gives the name ParseVictim accepts.
func (v Victim) String() string {
	if v < 0 || int(v) >= len(victimNames) {
		return fmt.Sprintf("Victim(%d)", int(v))
	}
	return victimNames[v]
}

// ParseVictim reads "random", "load" or "zone".
func ParseVictim(s string) (Victim, error) {
	for v, name := range victimNames {
		if s == name {
			return Victim(v), nil
		}
	}
	return 0, fmt.Errorf("unknown fishing victim choice %q: want random, load or zone", s)
}

// The defaults of Params; doc.go says why.
const (
	DefaultMaxInFlight    = 1
	DefaultTasksPerAnswer = 1
	DefaultRetryBackoff   = 500 * time.Microsecond
	DefaultMaxBackoff     = 20 * time.Millisecond
	DefaultMinReady       = 1
	DefaultReplyTimeout   = time.Second
)

// Params tunes a fishing policy. A zero field takes its default, so
// Params{Victim: Zone} is the default policy with zone-aware victims.
type Params struct {
	// Victim is how the peer to ask is chosen (default Random).
	Victim Victim
	// MaxInFlight is how many fishing requests the node keeps outstanding
	// at most, each to a different peer (default 1).
	MaxInFlight int
	// TasksPerAnswer is the most tasks asked for, and lent, per request
	// (default 1). An answerer lends min(TasksPerAnswer, ceil(ready/2)):
	// never more than half of what it has, rounded up, so a node with a
	// single ready task can still lend it.
	TasksPerAnswer int
	// RetryBackoff is how long a peer that refused is not asked again
	// (default 5 ms). It doubles on every further refusal (or timeout) from
	// the same peer, up to MaxBackoff, and is reset by an answer with
	// tasks. Negative: no backoff at all.
	RetryBackoff time.Duration
	// MaxBackoff caps the doubling of RetryBackoff (default 200 ms; raised
	// to RetryBackoff if smaller).
	MaxBackoff time.Duration
	// MinReady is the fewest ready tasks the node must hold to lend any
	// (default 1: lend whenever there is something to lend). Values below 1
	// mean 1.
	MinReady int
	// ReplyTimeout is how long a request may stay unanswered before Tick
	// forgets it, so that a dead or lost peer does not hold the node's
	// request slot (default 1 s). A timeout counts as a refusal for the
	// peer's backoff.
	ReplyTimeout time.Duration
}

// DefaultParams returns the defaults: random victims, one request in
// flight, one task per answer, 5 ms backoff doubling to 200 ms, lend from
// one ready task on, 1 s reply timeout.
func DefaultParams() Params {
	return Params{
		Victim:         Random,
		MaxInFlight:    DefaultMaxInFlight,
		TasksPerAnswer: DefaultTasksPerAnswer,
		RetryBackoff:   DefaultRetryBackoff,
		MaxBackoff:     DefaultMaxBackoff,
		MinReady:       DefaultMinReady,
		ReplyTimeout:   DefaultReplyTimeout,
	}
}

// withDefaults fills the zero fields of p.
func (p Params) withDefaults() Params {
	if p.Victim < Random || p.Victim > Zone {
		p.Victim = Random
	}
	if p.MaxInFlight <= 0 {
		p.MaxInFlight = DefaultMaxInFlight
	}
	if p.TasksPerAnswer <= 0 {
		p.TasksPerAnswer = DefaultTasksPerAnswer
	}
	if p.RetryBackoff == 0 {
		p.RetryBackoff = DefaultRetryBackoff
	}
	if p.MaxBackoff <= 0 {
		p.MaxBackoff = DefaultMaxBackoff
	}
	if p.RetryBackoff > 0 && p.MaxBackoff < p.RetryBackoff {
		p.MaxBackoff = p.RetryBackoff
	}
	if p.MinReady < 1 {
		p.MinReady = DefaultMinReady
	}
	if p.ReplyTimeout <= 0 {
		p.ReplyTimeout = DefaultReplyTimeout
	}
	return p
}
