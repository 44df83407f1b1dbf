// Package uts is the Unbalanced Tree Search (UTS) kernel: a serial,
// bit-exact reimplementation of the tree definition used by the reference
// UTS benchmark, so that node, leaf and depth counts match the published
// sample trees (T1..T5, T1L, T2L, T3L, T1XL).
//
// # What UTS is
//
// UTS counts the nodes of an implicitly defined, highly unbalanced tree.
// Each node carries a 20-byte state; the number of children of a node and
// the states of those children are derived from that state by SHA-1, so
// the shape of the tree is fixed by the parameters, yet it cannot be
// known without visiting it. That makes it the canonical stress test for
// dynamic load balancing: subtree sizes vary by orders of magnitude and
// nothing predicts them.
//
// # Definition
//
// State. A node's state is a SHA-1 digest (crypto/sha1).
//
//   - Root: SHA-1 of 20 bytes: 16 zero bytes, then the root seed (-r) as a
//     32-bit big-endian integer. The root has height 0.
//   - Child i (i = 0..n-1): SHA-1 of 24 bytes: the parent's 20-byte state,
//     then i as a 32-bit big-endian integer. The child's height is the
//     parent's plus one. The hash does not depend on height or tree type.
//     Granularity (-g) repeats this same hash g times; it only changes the
//     cost per node, never the tree.
//   - Random value: r = bytes 16..19 of the state read big-endian, AND
//     0x7FFFFFFF; u = r / 2^31, so u is in [0, 1).
//
// Number of children, from the node's own u and height d:
//
//   - Binomial (-t 0): the root has floor(b0) children; any other node has
//     m children if u < q, else none.
//   - Geometric (-t 1): the target branching factor b_i is b0 at the root;
//     otherwise, by shape (-a):
//     0 linear: b0 * (1 - d/gen_mx);
//     1 exponential decrease: b0 * d^(-ln b0 / ln gen_mx);
//     2 cyclic: 0 if d > 5*gen_mx, else b0^sin(2*pi*d/gen_mx);
//     3 fixed: b0 if d < gen_mx, else 0.
//     Then p = 1/(1+b_i) and the count is floor(ln(1-u) / ln(1-p)), the
//     inverse CDF of a geometric distribution with mean b_i (0 when b_i
//     is 0).
//   - Hybrid (-t 2): the geometric rule while d < f*gen_mx (shift depth f,
//     -f), the binomial rule below. Unlike the binomial tree, the hybrid
//     root is not special: it follows whichever rule its height selects.
//   - No node has more than MaxNumChildren (100) children, except the root
//     of a binomial tree, which is capped at ceil(b0) instead.
//
// Counts: nodes include the root, a leaf is a node with no children, and
// the depth is the greatest height reached.
//
// # Splitting into tasks
//
// Every node is self-describing: a Node value (state and height, 24
// bytes, fixed-size so it can be shipped between machines together with
// Params) is all that is needed to expand its subtree. The task version
// (task.go) is natural code: it forks each child that has children of its
// own as a task (a Work: Params, Node, and the child's number of children,
// which the parent computed) and adds up what the forks return. go
// generate writes its fast clone (cmd/tsysclone), which the task is
// registered by: while the runtime answers that enough tasks are ready
// (tsys.Ctx.AllowCCall), the clone recurses as plain Go calls. Leaf
// children are counted by their parent, never spawned, and a node of more
// than 32 children spawns them as a range that splits in halves. Children
// are computed independently from the parent's state alone, so the result
// does not depend on scheduling, and it must equal Serial exactly.
package uts
