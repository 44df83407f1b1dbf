// Package balance holds the pushing schedulers. Policy is NewTS's
// balancing scheduler: nodes tell each other how many ready tasks they
// hold, and a node whose count falls below Limit receives one task from
// each node that holds more. RatePolicy (rate.go) is rate-aware balancing
// after Siegell and Steenkiste, which places work by each node's speed. It is the pushing
// counterpart of package fishing's stealing, and the baseline the papers
// compare it with (NewTS: Stepanov, MSU dissertation, 2008): it needs no request
// round trip before a task moves, but its status messages grow with the
// number of nodes, and it moves tasks that a stealing scheduler would have
// left where they were.
//
// Like every clusterpolicy.Policy it is a state machine fed events with their time;
// its engine (package cluster) carries out its actions:
//
//   - every Period (and at once when a worker finds nothing to do, at most
//     every Period/4) it asks its engine to Report the node's load to every
//     peer: one status message per peer. A node whose load stays what its
//     last report told (the same counts, no task arrived since) reports
//     it again only once a second, and at once to a peer that joins
//     (reporter.go, steadyReportEvery);
//   - a load report from a peer whose ready count is below Limit, while this
//     node holds more, makes it Give that peer one task, once per report;
//   - it answers no steal request: a node of another scheduler is refused
//     when a job starts.
//
// # Parameters and defaults
//
//   - Limit = 1: a node receives work when it has no ready task at all. With
//     load-based inlining a busy node keeps about K ready tasks, so a higher
//     limit would feed nodes that are working.
//   - Period = 5 ms: a few round trips on a LAN, and a hundred reports in a
//     half-second job; each report costs a message to every peer. Unless a
//     period is given, it grows with the cluster by Siegell and
//     Steenkiste's rule: a round of reports, one sent to each peer and one
//     received from each at ReportCost apiece (10 us), costs a node at most
//     5% of the period (Params.PeriodFor). From 14 nodes on that is longer
//     than 5 ms; at 1,024, 0.41 s. A fixed period makes each node of a
//     thousand spend more than its CPU on reports, and the job never ends
//     (sim/doc.go).
//
// On the command line: --sched balance[:limit=L,period=P,cost=C].
//
// # Rate-aware balancing
//
// RatePolicy (--sched ratebalance[:threshold=F,period=D,movecost=D]) is
// Siegell and Steenkiste's scheme ("Automatic selection of load balancing
// parameters using compile-time and run-time information", 1997) on tsys's
// signals:
//
//   - The load signal is a node's speed: the share of a core its busy
//     workers get, clusterpolicy.Load's Rate over Busy (busy time that the CPU
//     really ran, over busy time), so a node sharing its core with another
//     process shows it. It is filtered with their asymmetric filter,
//     s' = (1-h) s + h s'_prev, h = HDown = 0.2 for a slow-down (trusted
//     fast) and HUp = 0.8 for a speed-up (trusted slowly), both inside the
//     paper's ranges. A report from an idle node leaves the speed alone.
//   - Work is placed in proportion to capacity (workers x speed): the
//     balanced load is all ready tasks over all capacity, and a node whose
//     own tasks over its capacity exceed that by more than Threshold
//     (10%, the paper's) gives its excess to the nodes below their share,
//     the largest deficit first: each period, and at once when a peer
//     reports that it has run dry, which would otherwise sit idle for up to
//     a period.
//   - A cost-benefit check cancels a move whose cost (tasks moved x the
//     learned cost of moving one) exceeds its gain (the time the tasks
//     would take here: tasks x Load.TaskTime / speed, or, when the
//     receiver has run dry, at least the period it would sit idle: the mean
//     task time understates the oldest ready tasks of a tree, which are
//     whole subtrees; bench/README.md's decision log has the UTS T1 runs).
//   - The cost of moving a task is learned from past moves: the time from
//     a move to the receiver's next report, less half a period, per task,
//     averaged with what was known (MoveCost = 1 ms until then).
//   - The period adapts as theirs does, bounded below by about ten OS
//     scheduling quanta: max(MinPeriod = 20 ms, 20 x the move cost), at
//     most MaxPeriod = 500 ms. The paper's other term, the interaction cost
//     over 5%, is below it here: a report is one small message.
//
// Ready tasks are its units of work, as in Policy: tsys cannot know what a
// task holds, so a tree's tasks, which differ widely, are balanced as if
// they were equal, and a flat loop's halves too.
package balance
