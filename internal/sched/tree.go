package sched

import (
	"sync"
	"time"
)

// TreeRecorder records a run's task tree while work and span are measured
// (workspan.go): each task's parent, in spawn order, and the work its own
// frame did. The simulator replays it (tsys sim --app replay:file=F). It
// is a slow, opt-in mode: frames have no room for an id, so a map under a
// mutex gives them one, at every spawn and every frame's start.
type TreeRecorder struct {
	// Limit, above 0, is the most tasks the recorder keeps: a run that
	// spawns more records no more of them, and Overflowed says so, so that
	// a tree too big to replay costs its recorder bounded memory.
	Limit int

	mu       sync.Mutex
	ids      map[*Header]int32
	overflow bool
	Parent   []int32 // Parent[i] is task i's parent; -1 for the root
	WorkNs   []int64 // the time task i's own frame computed
}

// Overflowed reports whether the last run spawned more tasks than Limit,
// so that the tree recorded is only its start.
func (r *TreeRecorder) Overflowed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.overflow
}

// NewTreeRecorder makes an empty recorder.
func NewTreeRecorder() *TreeRecorder { return &TreeRecorder{ids: map[*Header]int32{}} }

// root starts a run's tree at h.
func (r *TreeRecorder) root(h *Header) {
	r.mu.Lock()
	defer r.mu.Unlock()
	clear(r.ids)
	r.overflow = false
	r.Parent, r.WorkNs = r.Parent[:0], r.WorkNs[:0]
	r.ids[h] = r.add(-1)
}

// add makes a task of parent; r.mu is held.
func (r *TreeRecorder) add(parent int32) int32 {
	r.Parent = append(r.Parent, parent)
	r.WorkNs = append(r.WorkNs, 0)
	return int32(len(r.Parent) - 1)
}

// spawned records h as a child of task parent.
func (r *TreeRecorder) spawned(h *Header, parent int32) {
	r.mu.Lock()
	if r.Limit > 0 && len(r.Parent) >= r.Limit {
		// Frames are recycled: h must not keep the id of the task that
		// last used it.
		delete(r.ids, h)
		r.overflow = true
	} else {
		r.ids[h] = r.add(parent)
	}
	r.mu.Unlock()
}

// id is h's task id; -1 for a task the recorder never saw spawned (one
// that came from another node).
func (r *TreeRecorder) id(h *Header) int32 {
	r.mu.Lock()
	defer r.mu.Unlock()
	if id, ok := r.ids[h]; ok {
		return id
	}
	return -1
}

// worked adds d to task id's own work.
func (r *TreeRecorder) worked(id int32, d time.Duration) {
	if id < 0 {
		return
	}
	r.mu.Lock()
	r.WorkNs[id] += int64(d)
	r.mu.Unlock()
}
