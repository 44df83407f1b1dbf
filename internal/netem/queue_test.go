package netem

import (
	"testing"
	"time"
)

func TestQueueReleasesWhatIsDueEarliestFirst(t *testing.T) {
	q := Queue{Max: 10}
	ms := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }
	q.Push(ms(30), 0, []byte("c"))
	q.Push(ms(10), 1, []byte("a"))
	q.Push(ms(20), 0, []byte("b1"))
	q.Push(ms(20), 1, []byte("b2"))
	if at, ok := q.Next(); !ok || !at.Equal(ms(10)) {
		t.Fatalf("Next = %v, %v, want %v", at, ok, ms(10))
	}
	if due := q.Due(ms(9)); len(due) != 0 {
		t.Fatalf("%d packets due before the first's time", len(due))
	}
	due := q.Due(ms(20))
	var got string
	for _, p := range due {
		got += string(p.data) + " "
	}
	if got != "a b1 b2 " {
		t.Fatalf("due at 20 ms: %q, want a, then b1 and b2 in the order pushed", got)
	}
	if q.Len() != 1 {
		t.Fatalf("%d left, want 1", q.Len())
	}
	q.Due(ms(30))
	if _, ok := q.Next(); ok || q.Len() != 0 {
		t.Fatal("the queue is not empty after everything was due")
	}
}

func TestQueueDropsPastItsBound(t *testing.T) {
	q := Queue{Max: 2}
	if !q.Push(t0, 0, nil) || !q.Push(t0, 0, nil) {
		t.Fatal("a queue of 2 refused its first two")
	}
	if q.Push(t0, 0, nil) {
		t.Fatal("a queue of 2 took a third")
	}
	q.Due(t0)
	if !q.Push(t0, 0, nil) {
		t.Fatal("an emptied queue refused a packet")
	}
}
