package fishing

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/tsys-go/tsys/internal/opts"
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

// Lending says how much a node lends (Params.Lend).
type Lending int

const (
	// LendAuto lends half on clusters of autoHalfFrom nodes or more, the
	// adaptive batch on smaller ones.
	LendAuto Lending = iota
	// LendAdaptive lends the asker's batch, grown while it comes back
	// quickly.
	LendAdaptive
	// LendHalf lends half of what is ready (steal-half).
	LendHalf
)

var lendingNames = [...]string{LendAuto: "auto", LendAdaptive: "adaptive", LendHalf: "half"}

// String gives the name lend= takes.
func (l Lending) String() string {
	if l < 0 || int(l) >= len(lendingNames) {
		return fmt.Sprintf("Lending(%d)", int(l))
	}
	return lendingNames[l]
}

// The defaults of Params; doc.go says why.
const (
	DefaultMaxInFlight    = 0 // auto: inFlightFor
	DefaultTasksPerAnswer = 1
	DefaultRetryBackoff   = 500 * time.Microsecond
	DefaultMaxBackoff     = 20 * time.Millisecond
	DefaultMinReady       = 1
	DefaultReplyTimeout   = time.Second
	DefaultExpose         = 16
	DefaultDemandHold     = 2 * time.Millisecond
	DefaultDeferFor       = 2 * time.Millisecond
	DefaultMaxTasks       = 8
	DefaultQuickReturn    = 5 * time.Millisecond
	DefaultLowWater       = 0
	DefaultIdleBackoff    = time.Second
	DefaultLifelines      = 0 // auto: on clusters of 256 nodes or more (lifeline.go)
)

// Params tunes a fishing policy. A zero field takes its default, so
// Params{Victim: Zone} is the default policy with zone-aware victims.
type Params struct {
	// Victim is how the peer to ask is chosen (default Random).
	Victim Victim
	// MaxInFlight is how many fishing requests the node keeps outstanding
	// at most, each to a different peer (default 0: the square root of
	// the number of peers, rounded, at least 1, and fewer while answers
	// come back without tasks; inflight.go).
	MaxInFlight int
	// TasksPerAnswer is the batch a node first lends each peer (default
	// 1): it lends min(batch, ceil(ready/2)), never more than half of
	// what it has, rounded up, so a node with a single ready task can
	// still lend it.
	TasksPerAnswer int
	// MaxTasksPerAnswer bounds the batch (default 8, at least
	// TasksPerAnswer). A peer that asks again within QuickReturn of the
	// last tasks it was lent has run through them: its batch doubles, up
	// to this. One that asks after 4 x QuickReturn gets half its batch,
	// down to TasksPerAnswer. Coarse tasks thus travel one at a time, and
	// a tree of tiny ones (UTS on binomial trees) moves in batches that
	// outlast a round trip.
	MaxTasksPerAnswer int
	// QuickReturn is the time within which a peer's new request shows
	// that its last batch was too small (default 5 ms: several round
	// trips on a LAN, and well below the time a coarse task takes).
	QuickReturn time.Duration
	// RetryBackoff is how long a peer that refused is not asked again
	// (default DefaultRetryBackoff). It doubles on every further refusal (or timeout) from
	// the same peer, up to MaxBackoff, and is reset by an answer with
	// tasks. Negative: no backoff at all.
	RetryBackoff time.Duration
	// MaxBackoff caps the doubling of RetryBackoff (default
	// DefaultMaxBackoff; raised to RetryBackoff if smaller).
	MaxBackoff time.Duration
	// IdleBackoff, when above MaxBackoff, lets the backoff towards a peer
	// that keeps refusing double on up to it while every worker of the
	// node waits and nothing is ready: a node serving a job whose work is
	// all elsewhere then asks a few times a second, not fifty (idle.go).
	// The growth past MaxBackoff is undone as soon as a worker here has
	// work, or the peer's load report shows ready tasks, so work that
	// appears at the peer reaches the node within a round of its load's
	// gossip. 0 takes the default (DefaultIdleBackoff); negative, or at
	// most MaxBackoff: no growth past MaxBackoff.
	IdleBackoff time.Duration
	// MinReady is the fewest ready tasks the node must hold to lend any
	// (default 1: lend whenever there is something to lend). Values below 1
	// mean 1.
	MinReady int
	// ReplyTimeout is how long a request may stay unanswered before Tick
	// forgets it, so that a dead or lost peer does not hold the node's
	// request slot (default 1 s). A timeout counts as a refusal for the
	// peer's backoff.
	ReplyTimeout time.Duration
	// Expose is how many ready tasks beyond the inlining threshold the
	// node's workers keep stealable while peers are asking for work
	// (default DefaultExpose; negative: none). It is the scheduler's say in
	// allowCCall: a node that inlines everything has nothing to lend.
	Expose int
	// DemandHold is how long a steal request, running dry or a peer
	// joining counts as demand for Expose (default DefaultDemandHold): a
	// few round trips, so that a peer that fishes again soon finds the
	// tasks kept for it, and no longer, since every spawn made while it
	// lasts is a task.
	DemandHold time.Duration
	// DeferFor is how long a request that finds nothing to lend is held
	// for the next task spawned, before it is refused (default 2 ms;
	// negative: refuse at once). NewTS's deferred answer: a refusal costs
	// the asker a round trip and a back-off, while the asked node, told
	// by the request to keep tasks stealable, pushes one within
	// microseconds if it is working at all. A node that is not (every
	// worker waits, nothing is ready) refuses at once.
	DeferFor time.Duration
	// LowWater is the ready tasks below which a node whose workers are
	// all at work asks for more, ahead of need (prefetch.go): the answer
	// is on its way while the last ones run, rather than a round trip
	// after a worker ran dry. 0 (the default) or negative: a node asks
	// only once a worker has nothing.
	LowWater int
	// Lend is what a node lends: the asker's adaptive batch, or half its
	// ready tasks, rounded up, up to what the asker wants (steal-half);
	// by default (LendAuto) half on clusters of autoHalfFrom nodes or
	// more (lender.go).
	Lend Lending
	// Lifelines is how many answers in a row without tasks (refusals and
	// timeouts) make a hungry node, starved (fewer than one answer in 8
	// brings tasks), stop asking at random and wait on its lifelines, the
	// few nodes of a low-degree graph over the members that give it work
	// when they have some (lifeline.go). 0 (the default, auto): 2 on
	// clusters of 256 nodes or more, none on smaller ones; negative:
	// never.
	Lifelines int
}

// DefaultParams returns the defaults: random victims and the Default
// constants above.
func DefaultParams() Params {
	return Params{
		Victim:            Random,
		MaxInFlight:       DefaultMaxInFlight,
		TasksPerAnswer:    DefaultTasksPerAnswer,
		MaxTasksPerAnswer: DefaultMaxTasks,
		QuickReturn:       DefaultQuickReturn,
		RetryBackoff:      DefaultRetryBackoff,
		MaxBackoff:        DefaultMaxBackoff,
		MinReady:          DefaultMinReady,
		ReplyTimeout:      DefaultReplyTimeout,
		Expose:            DefaultExpose,
		DemandHold:        DefaultDemandHold,
		DeferFor:          DefaultDeferFor,
		LowWater:          DefaultLowWater,
		IdleBackoff:       DefaultIdleBackoff,
		Lifelines:         DefaultLifelines,
	}
}

// withDefaults fills the zero fields of p.
func (p Params) withDefaults() Params {
	if p.Victim < Random || p.Victim > Zone {
		p.Victim = Random
	}
	p.MaxInFlight = max(p.MaxInFlight, 0)
	if p.TasksPerAnswer <= 0 {
		p.TasksPerAnswer = DefaultTasksPerAnswer
	}
	if p.MaxTasksPerAnswer <= 0 {
		p.MaxTasksPerAnswer = DefaultMaxTasks
	}
	p.MaxTasksPerAnswer = max(p.MaxTasksPerAnswer, p.TasksPerAnswer)
	if p.QuickReturn <= 0 {
		p.QuickReturn = DefaultQuickReturn
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
	if p.IdleBackoff == 0 {
		p.IdleBackoff = DefaultIdleBackoff
	}
	if p.IdleBackoff < p.MaxBackoff {
		p.IdleBackoff = -1 // no growth past MaxBackoff
	}
	if p.MinReady < 1 {
		p.MinReady = DefaultMinReady
	}
	if p.ReplyTimeout <= 0 {
		p.ReplyTimeout = DefaultReplyTimeout
	}
	if p.Expose == 0 {
		p.Expose = DefaultExpose
	}
	if p.DemandHold <= 0 {
		p.DemandHold = DefaultDemandHold
	}
	if p.DeferFor == 0 {
		p.DeferFor = DefaultDeferFor
	}
	p.LowWater = max(p.LowWater, 0)
	if p.Lend < LendAuto || p.Lend > LendHalf {
		p.Lend = LendAuto
	}
	p.Lifelines = max(p.Lifelines, -1)
	return p
}

// ParseParams reads the options of --sched fishing:OPTIONS, a comma-
// separated list: a victim choice (random, load, zone) and key=value
// settings, each defaulting as in Params:
//
//	inflight=N|auto MaxInFlight     tasks=N     TasksPerAnswer
//	maxtasks=N   MaxTasksPerAnswer  quick=D     QuickReturn
//	backoff=D    RetryBackoff       maxbackoff=D MaxBackoff
//	minready=N   MinReady           timeout=D   ReplyTimeout
//	expose=N     Expose             hold=D      DemandHold
//	defer=D      DeferFor           low=N       LowWater
//	idlebackoff=D IdleBackoff
//	lend=auto|adaptive|half  Lend
//	lifelines=N|auto|off  Lifelines
//
// D is a Go duration ("500us", "20ms"). An empty string gives the defaults.
// Where a negative value means none (expose, backoff, defer, idlebackoff,
// lifelines), so does 0:
// written out, it means zero, not the default a zero field takes. Each
// option may be given once. tasks above the default maxtasks raises it;
// above a maxtasks written out, it is refused.
func ParseParams(s string) (Params, error) {
	p := DefaultParams()
	if s == "" {
		return p, nil
	}
	seen := map[string]bool{}
	for _, item := range strings.Split(s, ",") {
		if item == "" {
			return p, fmt.Errorf("fishing options %q: an empty option (a comma too many?)", s)
		}
		key, val, isSetting := strings.Cut(item, "=")
		name := key
		if !isSetting {
			name = "the victim choice"
		}
		if seen[name] {
			return p, fmt.Errorf("fishing options %q: %s given twice", s, name)
		}
		seen[name] = true
		if !isSetting {
			v, err := ParseVictim(item)
			if err != nil {
				return p, err
			}
			p.Victim = v
			continue
		}
		if err := p.set(key, val); err != nil {
			return p, err
		}
	}
	if seen["tasks"] && seen["maxtasks"] && p.TasksPerAnswer > p.MaxTasksPerAnswer {
		return p, fmt.Errorf("fishing options tasks=%d, maxtasks=%d: an answer's first size is more than its most", p.TasksPerAnswer, p.MaxTasksPerAnswer)
	}
	return p.withDefaults(), nil
}

// set applies one key=value setting of ParseParams.
func (p *Params) set(key, val string) error {
	if key == "lend" {
		for l, name := range lendingNames {
			if val == name {
				p.Lend = Lending(l)
				return nil
			}
		}
		return fmt.Errorf("fishing option lend=%q: want adaptive (the asker's batch, grown while it comes back quickly), half (half of what is ready) or auto (half on clusters of %d nodes or more)", val, autoHalfFrom)
	}
	if key == "inflight" && val == "auto" {
		p.MaxInFlight = 0
		return nil
	}
	if key == "lifelines" {
		n, err := strconv.Atoi(val)
		switch {
		case val == "off":
			n = -1
		case val == "auto":
			n = 0
		case err != nil || n < 0:
			return fmt.Errorf("fishing option lifelines=%q: want the number of answers without tasks in a row after which a starved node waits on its lifelines, auto (2 on clusters of 256 nodes or more) or off", val)
		case n == 0:
			n = -1 // lifelines=0: none, where a zero field takes auto
		}
		p.Lifelines = n
		return nil
	}
	ints := map[string]*int{"inflight": &p.MaxInFlight, "tasks": &p.TasksPerAnswer, "maxtasks": &p.MaxTasksPerAnswer, "minready": &p.MinReady, "expose": &p.Expose, "low": &p.LowWater}
	durations := map[string]*time.Duration{"backoff": &p.RetryBackoff, "maxbackoff": &p.MaxBackoff, "idlebackoff": &p.IdleBackoff, "timeout": &p.ReplyTimeout, "hold": &p.DemandHold, "defer": &p.DeferFor, "quick": &p.QuickReturn}
	if dst, ok := ints[key]; ok {
		n, err := strconv.Atoi(val)
		if key == "low" && (err != nil || n < 0) {
			return fmt.Errorf("fishing option low=%q: want a whole number of ready tasks, 0 for none", val)
		}
		if key == "inflight" && (err != nil || n < 1) {
			return fmt.Errorf("fishing option inflight=%q: want a whole number of requests of at least 1, or auto (the square root of the number of peers)", val)
		}
		if err != nil || (n < 1 && key != "expose" && key != "low") {
			return fmt.Errorf("fishing option %s=%q: want a whole number of at least 1", key, val)
		}
		if n == 0 && key == "expose" {
			n = -1 // expose=0: none, where a zero field would take the default
		}
		*dst = n
		return nil
	}
	if dst, ok := durations[key]; ok {
		d, err := time.ParseDuration(val)
		if err != nil || (d <= 0 && key != "backoff" && key != "defer" && key != "idlebackoff") {
			return fmt.Errorf("fishing option %s=%q: want a positive duration such as 500us or 20ms", key, val)
		}
		if d == 0 {
			d = -1 // backoff=0, defer=0, idlebackoff=0: none, where a zero field would take the default
		}
		*dst = d
		return nil
	}
	return fmt.Errorf("unknown fishing option %q: want %s", key, opts.Known(Options))
}
