package sched

import "github.com/tsys-go/tsys/inline"

// Deep fork chains.
//
// The inlining policy counts the ready tasks in a worker's deque, and a
// fork chain never has many: f(n) forks f(n-1) and joins it, so its deque
// holds one task at most, which the join pops back and runs on top of the
// stack it forked from. Every level is then a task, each nested inside the
// last on one goroutine's stack: a frame, a push, a pop, and a stack of
// task frames several times as deep as the plain recursion's, which Go
// grows by copying and the collector scans whole (BenchmarkForkChain;
// bench/README.md, "Deep fork chains").
//
// A task that nobody took while deepNesting tasks were forked and joined
// inside one another on one stack is not likely to be taken at the next
// level either, and it costs the chain a task frame for nothing. So once
// an executor runs deepNesting tasks nested this way, and no worker of
// the node is looking for work, parked for want of it, or wanted by
// another node, the spawns it makes run as calls (AskSpawn grants credit
// as the policy's yes does). The answer is asked again with every grant,
// which lasts about maxStaleness: within that time of a worker or a node
// turning hungry, the forks are tasks again and a thief finds the next
// one. Trees whose nesting stays below deepNesting (fib, the UTS trees
// but the binomial ones deep in their chains) never meet the rule.
const deepNesting = 256

// deepAndUnwanted reports whether the executor runs deepNesting or more
// tasks nested on its stack while nobody wants work: its next spawn may
// then be a call whatever the policy's count of ready tasks. Only under
// load-based inlining: a policy that never inlines (inline.Never, as work
// and span measurement and the tree recorder use) keeps every spawn a
// task.
func (x *Executor) deepAndUnwanted(expose int) bool {
	if x.nested < deepNesting || expose > 0 || x.w.inline.Mode() != inline.Load {
		return false
	}
	p := x.pool
	return p.crew.nSpinning.Load() == 0 && p.crew.nIdle.Load() == 0 && !p.port.wanted.Load()
}
