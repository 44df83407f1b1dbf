package sched

import (
	"sync/atomic"
	"unsafe"
)

// Kind is what the scheduler knows of a registered task function: its
// stable name and how to run one of its frames. Package tsys makes one per
// Register call; the scheduler never sees argument or result types.
type Kind struct {
	// Name is the registered name, the identity under which a task crosses
	// nodes and under which its panics are reported.
	Name string
	// ID is a small dense number, the same in every process of one binary
	// as long as registration order is the same; used to index per-worker
	// caches.
	ID int
	// Run runs the task whose Header is h (the first field of its frame),
	// giving it c, and stores its result in the frame.
	Run func(h *Header, c *Ctx)

	// Codec makes and reads the bytes of a task that crosses nodes; nil
	// for a task that stays on its node.
	Codec Codec
	// Types describes the task's argument and result types in full (set by
	// package tsys, for a task that may cross nodes): a job's nodes must
	// describe each task alike, or one would misread another's bytes.
	Types string
	// Library marks a task the runtime registers for its own use (the
	// task of tsys.Both, those of the closure forms), which every
	// program has and none wrote: `version --tasks` lists them apart
	// from the program's.
	Library bool
}

// Lendable says whether the kind's tasks may run on other nodes.
func (k *Kind) Lendable() bool { return k.Codec != nil }

// Codec is how a task crosses nodes: its argument travels to the
// borrower, which makes the task anew from it; its result travels back
// to the lender, which stores it in the frame its waiters wait on. Package
// tsys implements it for each registered task whose argument and result
// may be copied; the cluster calls it, from one place (cluster/codec.go).
// Its methods may be called from any goroutine, for frames of the kind
// only; an error says the value cannot cross (the task then runs where it
// is).
type Codec interface {
	EncodeArg(h *Header) ([]byte, error)
	NewFromArg(arg []byte) (*Header, error)
	EncodeResult(h *Header) ([]byte, error)
	DecodeResult(h *Header, res []byte) error
}

// The state word of a task. The done bit is set once, when the result is
// stored; the borrowed bit is set before a task from another node is
// queued here, so that its completion is reported back (Remote.Return).
// Who lent it, and under which id, is the cluster's to remember: the flag
// keeps every other task's frame a size class smaller.
const (
	statePending uint32 = 0
	stateDone    uint32 = 1 << 0
	flagBorrowed uint32 = 1 << 1
)

// Header is the scheduler's part of a task frame. Package tsys embeds it as
// the first field of a frame that also holds the argument and the result, so
// a *Header and its frame share an address.
type Header struct {
	state atomic.Uint32
	// Gen counts the joins of a frame (Ctx.JoinForked), which checks
	// it against the generation a Forked's pointer carries to refuse a
	// second Join of one Fork (fork.go). It shares the state's word.
	Gen  uint32
	kind *Kind
	// waiters is the list of waiters blocked on this task, or closedList
	// once the task is done.
	waiters atomic.Pointer[waiter]
	// index is the deque slot the task was pushed to; written by the
	// pusher just after the push, which may already have published the
	// task: only Await reads it, through a Future or a Forked, which
	// exist only once the spawn has returned. Never changed after. Await
	// finds the task in its own deque by checking that slot (Deque.Holds
	// compares the slot's contents, so a task pushed to another deque
	// never matches).
	index uint32
	// span is the task's clock on the critical path (workspan.go), in
	// seconds: when it became ready, set before the push publishes it,
	// then when it finished, set before complete publishes that. Only
	// while a pool measures work and span. A float32 fits beside index in
	// the Header's 32 bytes, where 8 bytes more slow every spawn
	// (BenchmarkSpawnGet, bench/README.md "What profiling costs"); its
	// 24-bit mantissa keeps the clock to 1e-7 of its value.
	span float32
}

// Init prepares a fresh frame for kind k.
func (h *Header) Init(k *Kind) { h.kind = k }

// MarkBorrowed marks a task that came from another node, before it is
// queued: its completion is then reported through the pool's Remote.
func (h *Header) MarkBorrowed() { h.state.Store(flagBorrowed) }

// Kind returns the task's kind.
func (h *Header) Kind() *Kind { return h.kind }

// Done reports whether the task's result is stored.
func (h *Header) Done() bool { return h.state.Load()&stateDone != 0 }

// waiter is one reader blocked on a task: an executor, or the goroutine that
// started a run.
type waiter struct {
	next *waiter
	x    *Executor     // nil for an outside waiter
	ch   chan struct{} // signalled for an outside waiter
}

// closedList marks a waiter list that no longer accepts waiters.
var closedList = unsafe.Pointer(new(waiter))

func closed() *waiter { return (*waiter)(closedList) }

// addWaiter links w in and reports true, or reports false if the task is
// already done. Pairs with complete: both sides store then load, in
// opposite orders, with sequentially consistent atomics, so a waiter either
// sees the task done or is seen by the completer.
func (h *Header) addWaiter(w *waiter) bool {
	for {
		head := h.waiters.Load()
		if head == closed() {
			return false
		}
		w.next = head
		if h.waiters.CompareAndSwap(head, w) {
			return !h.Done()
		}
	}
}

// complete publishes the result and releases the waiters.
func (h *Header) complete(p *Pool) {
	// Only the executor that ran the task writes its state now.
	s := h.state.Load()
	h.state.Store(s | stateDone)
	if s&flagBorrowed != 0 && p.port.remote != nil {
		p.port.remote.Return(h)
	}
	if h.waiters.Load() == nil {
		return
	}
	for w := h.waiters.Swap(closed()); w != nil && w != closed(); w = w.next {
		if w.x != nil {
			p.crew.resume(w.x)
		} else {
			close(w.ch)
		}
	}
}
