package uts

import (
	"crypto/sha1"
	"encoding/binary"
)

// Node is everything needed to expand a subtree. It is fixed-size (24
// bytes under encoding/binary) so it can travel as a task argument.
type Node struct {
	State  [20]byte
	Height int32
}

// Root returns the root node (height 0).
func (p *Params) Root() Node {
	var msg [20]byte
	binary.BigEndian.PutUint32(msg[16:], uint32(p.RootSeed))
	return Node{State: sha1.Sum(msg[:]), Height: 0}
}

// Child returns child i of parent. The result depends only on the parent's
// state and i, which is what lets any worker expand any node.
func (p *Params) Child(parent *Node, i int) Node {
	var c Node
	p.childInto(parent, i, &c)
	return c
}

// childInto writes the child in place so callers keep one Node per stack
// frame and no copies.
func (p *Params) childInto(parent *Node, i int, c *Node) {
	var msg [24]byte
	copy(msg[:20], parent.State[:])
	p.hashChild(&msg, i, &c.State)
	c.Height = parent.Height + 1
}

// hashChild hashes msg, whose first 20 bytes already hold the parent's
// state, for child i. This runs once per node, so everything stays on the
// stack (sha1.Sum of an array: no allocation), and the message is kept
// across a parent's children rather than rebuilt: sha1.Sum's own work
// around the hardware's block is most of a child's cost (bench/README.md,
// "UTS serial throughput").
func (p *Params) hashChild(msg *[24]byte, i int, out *[20]byte) {
	binary.BigEndian.PutUint32(msg[20:], uint32(i))
	*out = sha1.Sum(msg[:])
	// Granularity re-derives the identical digest: extra work, same tree.
	for g := int32(1); g < p.Granularity; g++ {
		*out = sha1.Sum(msg[:])
	}
}

// rngProb maps the state to u in [0,1) exactly like the reference
// rng_rand/rng_toProb pair (31 bits, divided by 2^31, both exact in float64).
func rngProb(s *[20]byte) float64 {
	r := binary.BigEndian.Uint32(s[16:20]) & 0x7FFFFFFF
	return float64(r) / 2147483648.0
}
