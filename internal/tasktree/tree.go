// Package tasktree is the task tree a real run records (tsys run
// --record-tree) and the simulator replays. It stands apart from package
// report, which links the cluster, so that the simulator and the advisor
// read trees without the network.
package tasktree

// Tree is a task tree recorded from a real run (tsys run --record-tree),
// which tsys sim --app replay:file=FILE replays: task i's parent (-1 for
// the root, task 0) and the time its own frame computed. Children are in
// the order they were spawned.
type Tree struct {
	App    string  `json:"app"`
	Parent []int32 `json:"parent"`
	WorkNs []int64 `json:"work_ns"`
}
