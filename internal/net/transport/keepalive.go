package transport

import (
	"net"
	"time"
)

// A connection that stops making progress (the network between two nodes
// cut, or losing every packet) must be noticed, and must resume soon after
// the network comes back, rather than waiting out TCP's back-off. Left to
// itself, TCP retransmits what the peer has not acknowledged after its
// retransmission timeout (RTO: at least 200 ms on Linux, the path's round
// trip plus its variation otherwise) and doubles that timeout at each
// retransmission, up to 120 s. A cut of c seconds therefore ends, for the
// connection, only at the first retransmission after it: up to about c
// more (the retransmissions after 0.2 s of a cut fall at 0.2, 0.6, 1.4,
// 3.0, 6.2, 12.6, 25.4 s, so a 5 s cut resumes at 6.2 s, a 7 s one at
// 12.6 s, a 15 s one at 25.4 s).
//
// Every connection of the transport, dialled or accepted, therefore gets:
//
//   - maxRTO, the most TCP waits between retransmissions (TCP_RTO_MAX_MS,
//     Linux 6.15 and later): after a cut of any length the connection
//     resumes within maxRTO of the network's return, plus one round trip.
//     The SYNs of a dial are retransmitted on the same schedule. (Two
//     hosts on one link that the cut parted may each have given up on
//     the other's link address meanwhile, and ask for it again once a
//     second, Linux's neighbour retransmission time: up to a second
//     more there. TestCutResumes pins the addresses to measure TCP's
//     part alone.)
//   - userTimeout (TCP_USER_TIMEOUT, Linux): a connection whose oldest
//     data has gone unacknowledged that long is closed, with what was
//     queued on it; the next Send dials anew. It is the borrower silence
//     after which a lender runs a loan again anyway (loanSilence in
//     package cluster), so that a connection is never given up on while
//     its loans still wait on it. Under 10 % loss a connection survives:
//     with maxRTO it takes a dozen losses of the same segment in a row
//     to go 10 s unacknowledged.
//   - TCP keep-alive after keepIdle of silence, every keepInterval: an
//     idle connection to a peer that vanished (its host powered off, the
//     link cut while nothing was sent) is probed, and with userTimeout
//     closed within keepIdle + userTimeout of its last traffic, so that a
//     node that comes back at that address is dialled afresh.
//
// What carries loans is never idle for long: a lender asks about quiet
// loans every second (loanAskEvery in package cluster), so those queries
// are the heartbeat that meets maxRTO's retransmissions; the keep-alive is
// for the connections between jobs.
//
// Where the kernel lacks an option (another OS, or Linux before 6.15 for
// maxRTO) the connection keeps TCP's own schedule; resumeWithin tells what
// that costs.
const (
	maxRTO       = time.Second
	userTimeout  = 10 * time.Second
	keepIdle     = 5 * time.Second
	keepInterval = time.Second
)

// minRTO is Linux's least retransmission timeout, the first gap of a
// back-off on a short path; maxBackoffRTO is TCP's own cap on the doubling.
const (
	minRTO        = 200 * time.Millisecond
	maxBackoffRTO = 120 * time.Second
)

// keepAlive is the keep-alive every connection of the transport gets.
func keepAlive() net.KeepAliveConfig {
	return net.KeepAliveConfig{Enable: true, Idle: keepIdle, Interval: keepInterval, Count: int(userTimeout / keepInterval)}
}

// dialer is the dialer of the transport's outbound connections: its
// connections get the options above before their first SYN.
func dialer() *net.Dialer {
	return &net.Dialer{Timeout: dialTimeout, KeepAliveConfig: keepAlive(), Control: tuneRaw}
}

// tuneAccepted gives an accepted connection the options above.
func tuneAccepted(nc net.Conn) {
	tc, ok := nc.(*net.TCPConn)
	if !ok {
		return
	}
	tc.SetKeepAliveConfig(keepAlive())
	if rc, err := tc.SyscallConn(); err == nil {
		rc.Control(func(fd uintptr) { setProgressOpts(fd) })
	}
}

// resumeWithin is how long after the end of a cut of length cut, which
// began when a segment was first sent, TCP's next retransmission comes,
// with retransmissions starting at rto and doubling up to limit: the time
// a connection that carried data into the cut adds to it. With limit =
// maxRTO it is under maxRTO for any cut.
func resumeWithin(cut, rto, limit time.Duration) time.Duration {
	at := time.Duration(0)
	for at <= cut {
		at += rto
		rto = min(2*rto, limit)
	}
	return at - cut
}
