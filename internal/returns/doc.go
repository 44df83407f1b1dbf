// Package returns decides when a node sends the results of the tasks it
// borrowed back to their lenders: a pure state machine (a Batcher), told
// of loans arriving, of tasks finishing and of the time, that says which
// results to send now, grouped by lender, one message each. The
// simulator (sim) and the cluster engine (internal/cluster) drive the
// same Batcher, so what one measures is what the other does.
//
// # Why hold a result
//
// A tree of tiny tasks (UTS on binomial trees) moves many tasks of a few
// microseconds' work each; a message costs its sender and its receiver
// more than that. Sent one by one, the results are most of the messages
// a node sends. A borrower that holds the results of a lender's tasks
// while others of that lender's tasks are still running here sends them
// in one message, which costs what one result did.
//
// # When a held result goes
//
// A result waits only while it cannot delay the lender's work much:
//
//   - with the last task borrowed from the same lender that this node
//     still runs (Done): the lender needs them all before its own task
//     is done, in the common case of a batch lent to one request;
//   - with a result whose task was on the node longer than Params.Hold:
//     it is worth its message, and a lender may wait for it, so it goes
//     at once (a coarse task's result never waits), and takes along those
//     held for the same lender;
//   - when Params.MaxResults are held for a lender;
//   - when the node runs out of work (Idle), so that no result waits on
//     a node that is only looking for more;
//   - at the latest Params.Hold after the first one was held (Due, at
//     the time Next says): loans that keep coming from one lender, or a
//     task that runs long beside a short one, never hold a result longer.
//
// A Batcher knows nothing of sockets or clocks: each event brings the
// time, and the driver calls Due when Next says. It is not safe for
// concurrent use; the cluster engine's borrow book calls it under the
// book's lock.
package returns
