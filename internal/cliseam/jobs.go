package cliseam

// RunningJob is one job of a cluster as `jobs --json` prints it: its
// root, the nodes that take part in it, and what each gives it. The tsys
// command's tests decode the output with it.
type RunningJob struct {
	Job      string      `json:"job"`
	Root     string      `json:"root"`
	BeganNs  int64       `json:"began_ns"`
	Nodes    []string    `json:"nodes"`
	Shares   []NodeShare `json:"shares"`
	TasksRun int64       `json:"tasks_run"`
}

// NodeShare is what one node gives a job: the workers that may run its
// tasks there now (its sharing policy's grant).
type NodeShare struct {
	Node    string `json:"node"`
	Workers int    `json:"workers"`
	Rooted  bool   `json:"rooted,omitempty"`
	// Active is false while a node its sharing policy took from the job
	// finishes the job's tasks it had started.
	Active bool `json:"active"`
}
