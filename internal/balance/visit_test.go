package balance

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/tsys-go/tsys/internal/clusterpolicy"
)

// TestShortcutsDecideAsBefore: the bookkeeping that spares a tick a visit
// of every peer (Policy.wanting, RatePolicy.dry, balance's early return)
// changes no decision. A policy with the shortcuts and one that visits
// every peer, as the policies are defined, are fed the same random events
// (peers joining, leaving and draining, load reports of every size, ticks,
// hungry workers) and must answer each with the same actions, advice and
// counters.
func TestShortcutsDecideAsBefore(t *testing.T) {
	type pair struct {
		name       string
		fast, slow clusterpolicy.Policy
		stats      func(p clusterpolicy.Policy) any
	}
	mk := func(seed uint64) []pair {
		var ps []pair
		for _, limit := range []int{1, 2, 3} {
			fast, slow := New("n00", Params{Limit: limit, Period: 4 * time.Millisecond}), New("n00", Params{Limit: limit, Period: 4 * time.Millisecond})
			slow.visitAll = true
			ps = append(ps, pair{fmt.Sprintf("balance limit %d", limit), fast, slow, func(p clusterpolicy.Policy) any { return p.(*Policy).Stats() }})
		}
		for _, period := range []time.Duration{0, 4 * time.Millisecond} {
			p := RateParams{MinPeriod: period}
			fast, slow := NewRate("n00", p), NewRate("n00", p)
			slow.visitAll = true
			ps = append(ps, pair{fmt.Sprintf("ratebalance period %v", period), fast, slow, func(p clusterpolicy.Policy) any {
				r := p.(*RatePolicy)
				return []any{r.Stats(), r.Period(), r.moveCost}
			}})
		}
		return ps
	}
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 7))
		pairs := mk(seed)
		names := make([]clusterpolicy.NodeID, 12)
		for i := range names {
			names[i] = clusterpolicy.NodeID(fmt.Sprintf("n%02d", i+1))
		}
		now := t0
		load := func() clusterpolicy.Load {
			ready := []int{0, 0, 0, 0, 1, 1, 2, 3, 5, 40}[rng.IntN(10)]
			busy := rng.Float64()
			return clusterpolicy.Load{Ready: ready, Workers: 1 + rng.IntN(3), Idle: rng.IntN(2),
				Busy: busy, Rate: busy * rng.Float64(), TaskTime: time.Duration(rng.IntN(3)) * 300 * time.Microsecond}
		}
		gives := 0
		for step := range 3000 {
			now = now.Add(time.Duration(rng.IntN(1500)) * time.Microsecond)
			var ev string
			var do func(p clusterpolicy.Policy) []clusterpolicy.Action
			switch k := rng.IntN(20); {
			case k < 3:
				id := names[rng.IntN(len(names))]
				me := clusterpolicy.MemberEvent{Node: id, Joined: true}
				switch rng.IntN(3) {
				case 1:
					me = clusterpolicy.MemberEvent{Node: id}
				case 2:
					me = clusterpolicy.MemberEvent{Node: id, Leaving: true}
				}
				ev = fmt.Sprintf("membership %+v", me)
				do = func(p clusterpolicy.Policy) []clusterpolicy.Action { return p.Membership(now, me) }
			case k < 12:
				id, l := names[rng.IntN(len(names))], load()
				ev = fmt.Sprintf("report from %s %+v", id, l)
				do = func(p clusterpolicy.Policy) []clusterpolicy.Action { return p.LoadReport(now, id, l) }
			case k < 18:
				l := load()
				ev = fmt.Sprintf("tick %+v", l)
				do = func(p clusterpolicy.Policy) []clusterpolicy.Action { return p.Tick(now, l) }
			case k < 19:
				ev = "hungry"
				do = func(p clusterpolicy.Policy) []clusterpolicy.Action { return p.Hungry(now) }
			default:
				ev = "job started"
				do = func(p clusterpolicy.Policy) []clusterpolicy.Action { return p.JobStarted(now) }
			}
			for _, p := range pairs {
				a, b := do(p.fast), do(p.slow)
				if !reflect.DeepEqual(a, b) || p.fast.Advice() != p.slow.Advice() || !reflect.DeepEqual(p.stats(p.fast), p.stats(p.slow)) {
					t.Fatalf("seed %d step %d, %s, %s: %v with the shortcuts, %v visiting every peer (advice %+v, %+v; counters %+v, %+v)",
						seed, step, p.name, ev, a, b, p.fast.Advice(), p.slow.Advice(), p.stats(p.fast), p.stats(p.slow))
				}
				for _, x := range a {
					if x.Kind == clusterpolicy.Give {
						gives++
					}
				}
			}
		}
		if gives < 100 {
			t.Fatalf("seed %d: only %d gives: the events exercise too little", seed, gives)
		}
	}
}
