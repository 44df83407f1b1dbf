package tsys

import (
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"
)

// PairOf runs f(c, x) and g(c, y), possibly in parallel, and returns both
// results: Pair for the finest recursions, near the price of a registered
// task's Fork with no generated code. Its halves are functions and their arguments rather than
// closures, so that nothing is made on the heap: a func literal passed to
// Pair escapes, since it may become a task, and is allocated at every
// call with every variable it writes, where PairOf's functions are
// static and its arguments are copied only into a task. It runs as Pair
// does: while enough tasks are ready, f and then g run here as plain
// calls; otherwise g is forked, so an idle worker of this node may take
// it meanwhile, f runs here, and g runs here after f if nobody took it.
// Once the job has failed or been cancelled, g does not start.
//
//	func sum(c *tsys.Ctx, t *Tree) int64 {
//		if t == nil {
//			return 0
//		}
//		l, r := tsys.PairOf(c, sum, t.L, sum, t.R)
//		return t.V + l + r
//	}
//
// f and g must be functions declared at the package level: a func
// literal, or a method value (t.M), makes PairOf panic, every call,
// saying so; pass its variables as the argument instead, or use Pair.
// They run as a task's function does, on c or on a thief's Ctx, and join
// every Fork they make before they return. Since they capture nothing,
// the Ctx of the code around reaches them only through their argument, as
// it would a task's: they need no closure body's Ctx of their own, whose
// switch would cost several Forks. A failure in them names "tsys.PairOf",
// unless a task the program registered runs inside them.
//
// What it costs: at the finest grain (a leaf of a few nanoseconds) less
// than twice a registered task's Fork, the price of calling f and g
// through their func values and of asking whether they are declared
// functions; where a node does more, as in a pointer tree or a merge
// sort, about a Fork's time (bench/README.md, "The closure forms as users
// write them"). In the clone of a function that go generate writes
// (cmd/tsysclone), a PairOf whose functions are the package's asks the
// inlining policy first and, on a yes, calls them directly: a Fork's
// time.
func PairOf[X, Y, A, B any](c *Ctx, f func(c *Ctx, x X) A, x X, g func(c *Ctx, y Y) B, y Y) (A, B) {
	needCtx(c, formPairOf)
	// One question when the halves are one function, a recursion's way.
	if fv, gv := funcValue(unsafe.Pointer(&f)), funcValue(unsafe.Pointer(&g)); atomic.LoadUintptr(declaredSlot(uintptr(fv))) != uintptr(fv) ||
		gv != fv && atomic.LoadUintptr(declaredSlot(uintptr(gv))) != uintptr(gv) {
		checkDeclared(fv, "f")
		checkDeclared(gv, "g")
	}
	if c.AllowCCall() {
		a := f(c, x)
		c.stopIfEnded()
		return a, g(c, y)
	}
	// AllowCCall's no stands until the next push: the Fork pushes.
	forked := pairOfTask[Y, B]().Fork(c, pairOfHalf[Y, B]{g, y})
	a := f(c, x)
	return a, forked.Join(c)
}

// pairOfHalf is PairOf's second half, as the argument of its task.
type pairOfHalf[Y, B any] struct {
	g func(c *Ctx, y Y) B
	y Y
}

// pairOfTask is the task that runs PairOf's second half when it is
// forked.
func pairOfTask[Y, B any]() *Task[pairOfHalf[Y, B], B] {
	return registerClosureTask(formPairOf, runPairOf[Y, B])
}

// runPairOf runs a forked second half of PairOf. A failure whose stack
// passes here names PairOf (innerTask), as one in PairOf's own frame does.
func runPairOf[Y, B any](c *Ctx, h pairOfHalf[Y, B]) B { return h.g(c, h.y) }

// The stack names of PairOf's frames, by which a failure inside its
// halves is named "tsys.PairOf" whether they ran here or on a thief.
const (
	pairOfFrame    = thisPackage + "PairOf["
	runPairOfFrame = thisPackage + "runPairOf["
)

// declared caches the functions checkDeclared found declared, by their
// func values' addresses, which for a declared function are static: a
// func value made at run time (a closure's) is never found here, since
// checkDeclared never caches one. Each is in the slot its address hashes
// to, so that PairOf's question is a load and a compare for each
// function. No slot holds 0, the address of no function: a nil function
// takes the slow path, which names it.
var declared [64]uintptr

func init() {
	for i := range declared {
		atomic.StoreUintptr(&declared[i], 1)
	}
}

func declaredSlot(fv uintptr) *uintptr { return &declared[(fv>>3^fv>>9)%uintptr(len(declared))] }

// funcValue is the func value the func variable at f holds.
func funcValue(f unsafe.Pointer) unsafe.Pointer { return *(*unsafe.Pointer)(f) }

// checkDeclared panics, naming arg, unless fv (a func value) is a
// function declared at the package level, which it then caches.
func checkDeclared(fv unsafe.Pointer, arg string) {
	if fv == nil {
		needFunc(true, formPairOf, arg)
	}
	if _, ok := declaredAll.Load(uintptr(fv)); ok {
		// Another declared function holds its slot: a map lookup per
		// call, not a name's reading, while the two take turns.
		atomic.StoreUintptr(declaredSlot(uintptr(fv)), uintptr(fv))
		return
	}
	pc := *(*uintptr)(fv) // a func value's first word is its code
	name := ""
	if fn := runtime.FuncForPC(pc); fn != nil {
		name = fn.Name()
	}
	if what := closureKind(name); what != "" {
		panic(formPairOf + ": " + arg + " is " + what + " (" + name + "), which may capture a variable, " +
			"the Ctx of the code around it among them, and is made on the heap at each call: pass a function " +
			"declared at the package level and its variables as the argument, or use tsys.Pair for closures")
	}
	declaredAll.Store(uintptr(fv), true)
	atomic.StoreUintptr(declaredSlot(uintptr(fv)), uintptr(fv))
}

// declaredAll holds every function checkDeclared found declared, by its
// func value's address, for one whose slot another took.
var declaredAll sync.Map // uintptr -> bool

// closureKind says what kind of closure the function named name is, as
// runtime.FuncForPC spells it, or "" if it is a function declared at the
// package level.
func closureKind(name string) string {
	// Type arguments may hold dots and slashes: drop them.
	var b strings.Builder
	depth := 0
	for _, r := range name {
		switch {
		case r == '[':
			depth++
		case r == ']':
			depth--
		case depth == 0:
			b.WriteRune(r)
		}
	}
	base := b.String()
	base = base[strings.LastIndexByte(base, '/')+1:]
	switch {
	case name == "":
		return "a function whose name the runtime does not know"
	case strings.HasSuffix(base, "-fm"):
		return "a method value"
	case isLiteralName(base):
		return "a func literal"
	}
	return ""
}

// isLiteralName reports whether base (package.Name, its path and type
// arguments dropped) names a func literal: its last element is funcN,
// perhaps followed by nested literals' numbers (outer.func1.2).
func isLiteralName(base string) bool {
	parts := strings.Split(base, ".")
	for i := len(parts) - 1; i > 0; i-- {
		p := parts[i]
		if strings.HasPrefix(p, "func") && isDigits(p[len("func"):]) {
			return true
		}
		if !isDigits(p) {
			return false
		}
	}
	return false
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}
