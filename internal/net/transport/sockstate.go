package transport

// sockState is what a look at a socket's receive side, without reading,
// tells of a connection not yet read (probe).
type sockState int

const (
	sockEmpty   sockState = iota // nothing has arrived
	sockWaiting                  // bytes have arrived, unread
	sockGone                     // the peer has hung up (or reset)
)
