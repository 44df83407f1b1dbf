package netem

import (
	"container/heap"
	"time"
)

// A packet waiting to be delivered to host to at time at; seq orders
// packets due at the same time as they came.
type packet struct {
	at   time.Time
	seq  uint64
	to   int
	data []byte
}

// Queue holds delayed packets, at most Max of them, earliest due first.
// Its zero value with Max set is ready; it is not safe for concurrent use.
type Queue struct {
	Max   int
	items packets
	seq   uint64
}

// Push queues data for host to at time at; it reports false, and queues
// nothing, when the queue is full (a router's full buffer).
func (q *Queue) Push(at time.Time, to int, data []byte) bool {
	if len(q.items) >= q.Max {
		return false
	}
	q.seq++
	heap.Push(&q.items, packet{at: at, seq: q.seq, to: to, data: data})
	return true
}

// Due removes and returns the packets due by now, earliest first.
func (q *Queue) Due(now time.Time) []packet {
	var due []packet
	for len(q.items) > 0 && !q.items[0].at.After(now) {
		due = append(due, heap.Pop(&q.items).(packet))
	}
	return due
}

// Next is when the earliest packet is due; false when none waits.
func (q *Queue) Next() (time.Time, bool) {
	if len(q.items) == 0 {
		return time.Time{}, false
	}
	return q.items[0].at, true
}

// Len is how many packets wait.
func (q *Queue) Len() int { return len(q.items) }

// packets is a min-heap on (at, seq).
type packets []packet

func (h packets) Len() int { return len(h) }
func (h packets) Less(i, j int) bool {
	if !h[i].at.Equal(h[j].at) {
		return h[i].at.Before(h[j].at)
	}
	return h[i].seq < h[j].seq
}
func (h packets) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *packets) Push(x any)   { *h = append(*h, x.(packet)) }
func (h *packets) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
