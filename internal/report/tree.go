package report

// Tree is a task tree recorded from a real run (tsys run --record-tree),
// which tsys sim --app replay:file=FILE replays: task i's parent (-1 for
// the root, task 0) and the time its own frame computed. Children are in
// the order they were spawned.
type Tree struct {
	App    string  `json:"app"`
	Parent []int32 `json:"parent"`
	WorkNs []int64 `json:"work_ns"`
}
