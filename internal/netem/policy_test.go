package netem

import (
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)

func TestShapeValidateRefusesWhatCannotBe(t *testing.T) {
	for _, c := range []struct {
		s    Shape
		want string
	}{
		{Shape{Delay: -time.Millisecond}, "negative"},
		{Shape{Delay: 10 * time.Millisecond, Jitter: 20 * time.Millisecond}, "exceeds the delay"},
		{Shape{Loss: 1.5}, "probability"},
		{Shape{Loss: -0.1}, "probability"},
	} {
		if err := c.s.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want an error saying %q", c.s, err, c.want)
		}
		if _, err := NewPolicy(2, c.s, 1); err == nil {
			t.Errorf("NewPolicy took %+v", c.s)
		}
	}
	if err := (Shape{Delay: 50 * time.Millisecond, Jitter: 20 * time.Millisecond, Loss: 0.1}).Validate(); err != nil {
		t.Error(err)
	}
}

// Every packet's delay is the mean plus or minus at most the jitter,
// and the jitter is used: delays differ.
func TestDecideDelaysWithinTheJitter(t *testing.T) {
	s := Shape{Delay: 50 * time.Millisecond, Jitter: 20 * time.Millisecond}
	p, err := NewPolicy(2, s, 7)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[time.Duration]bool{}
	for i := range 1000 {
		// Far apart, so that no packet waits for the one before it.
		now := t0.Add(time.Duration(i) * time.Second)
		v, at := p.Decide(now, 0, 1)
		if v != Deliver {
			t.Fatalf("packet %d: verdict %v with no loss and no cut", i, v)
		}
		d := at.Sub(now)
		if d < s.Delay-s.Jitter || d > s.Delay+s.Jitter {
			t.Fatalf("packet %d delayed %v, want %v +- %v", i, d, s.Delay, s.Jitter)
		}
		seen[d] = true
	}
	if len(seen) < 100 {
		t.Errorf("1000 packets took %d distinct delays: the jitter is not drawn", len(seen))
	}
}

// Packets of one pair sent together leave in the order they came, though
// their drawn delays differ; another pair's are not held back by them.
func TestDecideKeepsAFlowInOrder(t *testing.T) {
	p, _ := NewPolicy(3, Shape{Delay: 50 * time.Millisecond, Jitter: 20 * time.Millisecond}, 3)
	var prev time.Time
	for i := range 200 {
		now := t0.Add(time.Duration(i) * time.Microsecond)
		_, at := p.Decide(now, 0, 1)
		if at.Before(prev) {
			t.Fatalf("packet %d leaves at %v, before the one sent before it (%v)", i, at, prev)
		}
		prev = at
	}
	// A packet on 0->1 delayed a second, then a shorter path: 0->1's
	// next waits for it, 2->1's does not.
	p.SetShape(Shape{Delay: time.Second})
	_, slow := p.Decide(t0, 0, 1)
	p.SetShape(Shape{Delay: time.Millisecond})
	if _, at := p.Decide(t0, 0, 1); at.Before(slow) {
		t.Errorf("0->1 overtook its own packet: %v before %v", at, slow)
	}
	if _, at := p.Decide(t0, 2, 1); !at.Equal(t0.Add(time.Millisecond)) {
		t.Errorf("2->1 left at %v, want %v: another pair's packet held it back", at.Sub(t0), time.Millisecond)
	}
}

// About Loss of the packets are lost, and the same seed loses the same
// ones.
func TestDecideLosesAtTheRate(t *testing.T) {
	for _, loss := range []float64{0.02, 0.10} {
		verdicts := func(seed uint64) []Verdict {
			p, _ := NewPolicy(2, Shape{Loss: loss}, seed)
			var vs []Verdict
			for i := range 20000 {
				v, _ := p.Decide(t0.Add(time.Duration(i)), 0, 1)
				vs = append(vs, v)
			}
			return vs
		}
		a, b := verdicts(11), verdicts(11)
		lost := 0
		for i := range a {
			if a[i] != b[i] {
				t.Fatalf("loss %v: one seed decided packet %d two ways", loss, i)
			}
			if a[i] == Lost {
				lost++
			}
		}
		// 20000 draws: the standard deviation of the count is under
		// 43 for 10 %; 5 of them either side.
		if got := float64(lost) / float64(len(a)); got < loss*0.8 || got > loss*1.2 {
			t.Errorf("loss %v: %d of %d lost (%.3f)", loss, lost, len(a), got)
		}
	}
}

// A cut host neither sends nor receives; joined again, it does both.
func TestDecideDropsAroundACutHost(t *testing.T) {
	p, _ := NewPolicy(3, Shape{Delay: time.Millisecond}, 1)
	p.SetCut(1, true)
	for _, pair := range [][2]int{{0, 1}, {1, 0}, {1, 2}, {2, 1}} {
		if v, _ := p.Decide(t0, pair[0], pair[1]); v != CutOff {
			t.Errorf("%v with host 1 cut off: verdict %v, want CutOff", pair, v)
		}
	}
	if v, _ := p.Decide(t0, 0, 2); v != Deliver {
		t.Errorf("0->2 with host 1 cut off: verdict %v, want Deliver", v)
	}
	p.SetCut(1, false)
	if v, _ := p.Decide(t0, 0, 1); v != Deliver {
		t.Errorf("0->1 after the cut: verdict %v, want Deliver", v)
	}
}
