package clusterpolicy

import (
	"testing"
	"time"
)

// asked records what Answer handed the policy; its other methods are
// never called.
type asked struct {
	Policy
	how  string
	self Load
}

func (a *asked) StealRequest(_ time.Time, from NodeID, want int, self Load) Action {
	a.how, a.self = "request", self
	return Action{Kind: Give, Node: from, Count: want}
}

type holder struct{ asked }

func (h *holder) LifelineRequest(_ time.Time, from NodeID, want int, self Load) Action {
	h.how, h.self = "lifeline", self
	return Action{Kind: Defer, Node: from}
}

// TestAnswer: a request goes to StealRequest with the node's load as it
// is; a lifeline goes to a holder's LifelineRequest with only the
// lendable tasks ready, and is refused by a policy that holds none.
func TestAnswer(t *testing.T) {
	self := Load{Ready: 5, Workers: 2}
	var h holder
	if a := Answer(&h, time.Time{}, "n1", 3, false, self, 2); a.Kind != Give || h.how != "request" || h.self != self {
		t.Errorf("request: %+v, heard as %q with %+v; want Give from StealRequest with %+v", a, h.how, h.self, self)
	}
	if a := Answer(&h, time.Time{}, "n1", 3, true, self, 2); a.Kind != Defer || h.how != "lifeline" || h.self.Ready != 2 || h.self.Workers != 2 {
		t.Errorf("lifeline: %+v, heard as %q with %+v; want Defer from LifelineRequest with Ready 2", a, h.how, h.self)
	}
	var p asked
	if a := Answer(&p, time.Time{}, "n1", 3, true, self, 2); a != (Action{Kind: Refuse, Node: "n1"}) || p.how != "" {
		t.Errorf("lifeline to a policy that holds none: %+v, heard as %q; want Refuse, unheard", a, p.how)
	}
}
