package cluster

import "github.com/tsys-go/tsys/internal/net/transport"

// ForgedRequests are the messages of this node's vocabulary that name a
// reply address, each naming replyTo, as a stranger would forge them for
// a job no node serves: a steal request, a loan query, a job ask, a job
// start (which the node serves, asking its "root" for work) and last a
// state request, whose answer tells that the node has handled the rest.
func ForgedRequests(replyTo string) []*transport.Message {
	const job = 1 << 40
	return []*transport.Message{
		encodeMessage(&stealRequest{Job: job, ID: 1, Want: 1, ReplyTo: replyTo}),
		encodeMessage(&loanQuery{Job: job, IDs: []uint64{1}, ReplyTo: replyTo}),
		encodeMessage(&jobAsk{Job: job, ReplyTo: replyTo}),
		encodeMessage(&jobStart{Job: job + 1, ReplyTo: replyTo}),
		encodeMessage(&statsRequest{ID: 7, ReplyTo: replyTo}),
	}
}

// IsStatsReply reports whether tm is the answer to a state request.
func IsStatsReply(tm *transport.Message) bool {
	m, err := decodeMessage(tm)
	_, ok := m.(*statsReply)
	return err == nil && ok
}
