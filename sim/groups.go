package sim

// groupStore holds the task groups, numbered as tasks name them
// (Task.group), in chunks that never move: among many nodes a run lends
// hundreds of thousands of tasks, a group each, and a slice grown by
// append would copy them all into fresh memory at each growth. A pointer
// to a group stays good as others are added.
type groupStore struct {
	chunks [][]group
	n      int
}

const groupChunk = 1024

// at is group g.
func (gs *groupStore) at(g int32) *group { return &gs.chunks[g/groupChunk][g%groupChunk] }

// add adds gr and returns its number.
func (gs *groupStore) add(gr group) int32 {
	if gs.n%groupChunk == 0 {
		gs.chunks = append(gs.chunks, make([]group, groupChunk))
	}
	g := int32(gs.n)
	gs.n++
	*gs.at(g) = gr
	return g
}

// len is how many groups there are.
func (gs *groupStore) len() int { return gs.n }
