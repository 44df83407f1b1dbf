package cluster

// inbox is what the node does on the word of others: the transport's
// handler (handle) and gossip's (onMember), and what each message or
// membership event sets off. Its methods run on a connection's reader
// goroutine or on memberlist's, so they only queue, answer from what is at
// hand, or start a goroutine; none waits for work. What the node's own
// user calls is on Node; what a job does is on its engine.
type inbox struct{ *Node }
