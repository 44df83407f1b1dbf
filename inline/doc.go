// Package inline decides, before every spawn, whether the spawn may become a
// plain function call: NewTS's allowCCall question.
//
// A T-call creates a task and puts it in the spawning worker's deque, where a
// thief may take it; a C-call runs the callee at once on the caller's stack,
// like an ordinary Go call. C-calls cost nothing extra but can never be
// stolen, so a runtime that inlines too eagerly starves its idle workers, and
// one that never inlines pays a task frame for every leaf of a fine-grained
// recursion.
//
// Load-based inlining answers from how much parallelism is already exposed:
// when the spawning worker's deque holds at least K ready tasks, thieves have
// enough to take, so one more is not needed and the call is inlined. The
// decision is irreversible (unlike lazy task creation, an inlined call is
// never turned back into a task), and it depends only on the deque's length,
// which the owning worker reads without contention.
//
// The question is asked on the hottest path of the runtime, so a Policy is a
// small value whose whole decision is one comparison against a precomputed
// threshold; the compiler inlines it into the scheduler's AskSpawn.
package inline
