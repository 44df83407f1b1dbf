package fishing

import (
	"strconv"

	"github.com/tsys-go/tsys/internal/opts"
)

// Options are what ParseParams reads, for help texts (package schedspec
// lists them under --sched fishing) and for its own errors. Each default
// is the Params field's, written as ParseParams reads it.
var Options = []opts.Option{
	{Value: "random|load|zone", Default: Random.String(), Help: "how a node chooses the peer it asks: at random, the one that last reported the most ready tasks, or one of its own zone first"},
	{Key: "inflight", Value: "N|auto", Default: "auto", Help: "requests a node keeps outstanding at once, each to a different peer; auto: the square root of the number of peers, rounded (1 for up to 2 peers), fewer while answers come back without tasks"},
	{Key: "tasks", Value: "N", Default: strconv.Itoa(DefaultTasksPerAnswer), Help: "the batch a node first lends a peer, at most half its ready tasks rounded up"},
	{Key: "maxtasks", Value: "N", Default: strconv.Itoa(DefaultMaxTasks), Help: "the most a batch grows to, doubling while a peer comes back within quick"},
	{Key: "quick", Value: "D", Default: DefaultQuickReturn.String(), Help: "a peer that asks again within this of its last batch ran through it"},
	{Key: "backoff", Value: "D", Default: DefaultRetryBackoff.String(), Help: "how long a peer that refused is not asked again, doubling on each refusal; 0 for none"},
	{Key: "maxbackoff", Value: "D", Default: DefaultMaxBackoff.String(), Help: "the most backoff doubles to"},
	{Key: "idlebackoff", Value: "D", Default: DefaultIdleBackoff.String(), Help: "while every worker waits and nothing is ready, backoff doubles on past maxbackoff up to this, undone once a worker has work or the peer reports ready tasks; 0 for none"},
	{Key: "minready", Value: "N", Default: strconv.Itoa(DefaultMinReady), Help: "the fewest ready tasks a node must hold to lend any"},
	{Key: "timeout", Value: "D", Default: DefaultReplyTimeout.String(), Help: "how long a request may go unanswered before the node forgets it and asks another peer"},
	{Key: "expose", Value: "N", Default: strconv.Itoa(DefaultExpose), Help: "ready tasks kept stealable beyond the inlining threshold while peers ask for work; 0 for none"},
	{Key: "hold", Value: "D", Default: DefaultDemandHold.String(), Help: "how long a request, or a peer joining, counts as demand for expose"},
	{Key: "low", Value: "N", Default: strconv.Itoa(DefaultLowWater), Help: "ask for work ahead of need when fewer ready tasks than this are left and every worker is at work; 0 asks only once a worker has nothing"},
	{Key: "lend", Value: "auto|adaptive|half", Default: "auto", Help: "how much a node lends: the asker's batch, grown while it comes back quickly, or half its ready tasks (steal-half), at most what was asked; auto: half on clusters of 16 nodes or more"},
	{Key: "lifelines", Value: "N|auto|off", Default: "auto", Help: "after N answers without tasks in a row, a starved node (fewer than one answer in 8 brings tasks) stops asking at random and waits on its lifelines: the few nodes of a hypercube-like graph over the members, which give it work when they have some; auto: 2 on clusters of 256 nodes or more, off on smaller ones"},
	{Key: "defer", Value: "D", Default: DefaultDeferFor.String(), Help: "how long a request that finds nothing to lend waits for the next task spawned, while a worker is at work (a node whose workers all wait refuses at once); 0 refuses at once"},
}
