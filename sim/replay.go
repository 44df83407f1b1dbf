package sim

import (
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/tsys-go/tsys/internal/tasktree"
)

// Tree is a task tree recorded from a real run (tsys run --record-tree),
// the file the replay workload reads: App names the program, Parent[i] is
// task i's parent (-1 for the root, task 0) and WorkNs[i] the time task
// i's own frame computed; children are in the order they were spawned.
// It is the command line's type, which the simulator shares rather than
// copies so that a recorded file and a replayed one cannot drift apart.
type Tree = tasktree.Tree

// Replay is a recorded tree as a workload: each task costs the work its
// frame did, all of it before its children are ready (the simulator's
// tasks do not join; see doc.go).
type Replay struct {
	name  string // where the tree came from: file=F, or what recorded it
	tree  Tree
	first []int32 // children of task i: kids[first[i]:first[i+1]]
	kids  []int32
}

// loadReplay reads and checks a recorded tree.
func loadReplay(path string) (*Replay, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	var t Tree
	if err := json.Unmarshal(b, &t); err != nil {
		return nil, fmt.Errorf("replay %s does not parse as a recorded tree: %w", path, err)
	}
	return NewReplay("file="+path, t)
}

// NewReplay makes a workload of tree; name says where it came from, in
// results and errors (file=F, or the run that recorded it). The workload shares tree's
// slices: the caller must not change them while it is in use.
func NewReplay(name string, tree Tree) (*Replay, error) {
	w := &Replay{name: name, tree: tree}
	t := &w.tree
	n := len(t.Parent)
	if n == 0 || len(t.WorkNs) != n || t.Parent[0] != -1 {
		return nil, fmt.Errorf("replay %s: want a root at 0 and as many work times as parents (%d and %d)", name, n, len(t.WorkNs))
	}
	counts := make([]int32, n+1)
	for i := 1; i < n; i++ {
		p := t.Parent[i]
		if p < 0 || int(p) >= i || t.WorkNs[i] < 0 {
			return nil, fmt.Errorf("replay %s: task %d has parent %d and work %d: a parent comes before its children", name, i, p, t.WorkNs[i])
		}
		counts[p+1]++
	}
	w.first = make([]int32, n+1)
	for i := 0; i < n; i++ {
		w.first[i+1] = w.first[i] + counts[i+1]
	}
	w.kids = make([]int32, n-1)
	next := append([]int32(nil), w.first[:n]...)
	for i := 1; i < n; i++ {
		p := t.Parent[i]
		w.kids[next[p]] = int32(i)
		next[p]++
	}
	return w, nil
}

func (w *Replay) Name() string {
	return fmt.Sprintf("replay:%s (%s, %d tasks)", w.name, w.tree.App, len(w.tree.Parent))
}
func (w *Replay) Root() Task                 { return Task{lo: 0} }
func (w *Replay) Cost(t *Task) time.Duration { return time.Duration(w.tree.WorkNs[t.lo]) }
func (w *Replay) CallsLast() bool            { return false }

func (w *Replay) Children(t *Task, into []Task) []Task {
	for _, k := range w.kids[w.first[t.lo]:w.first[t.lo+1]] {
		into = append(into, Task{lo: int64(k)})
	}
	return into
}
