package transport

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// A reply to a message goes back on the connection the message came on
// when the sender's listening address is not known from a source the
// node trusts (its membership, its command line): an address named in a
// message is the sender's word, and a keyless sender's word is anyone's.
// Dialling it would let a stranger choose whom the node connects to, and
// a name in it would be looked up in DNS on the stranger's say. A route
// names a live connection instead; it can only be had from ReplyAddr, and
// it is never dialled.

// routePrefix starts every route. It holds no ':', so no route is a
// host:port that a dialler would take.
const routePrefix = "@conn/"

// ErrNoRoute: the connection a reply was to go back on has closed.
var ErrNoRoute = errors.New("the connection the message came on has closed")

// ReplyAddr returns an address for Send and SendSync that goes back on
// the connection m arrived on, whichever side dialled it: nothing is
// dialled for it and no name is resolved. It is "" for a message that
// did not come from the network. Once that connection closes, a send to
// it fails with ErrNoRoute.
func (t *Transport) ReplyAddr(m *Message) string {
	if m.via == 0 {
		return ""
	}
	return routePrefix + strconv.FormatUint(m.via, 10)
}

// IsReplyAddr reports whether addr is a route of ReplyAddr rather than a
// host:port.
func IsReplyAddr(addr string) bool {
	_, ok := parseRoute(addr)
	return ok
}

func parseRoute(addr string) (uint64, bool) {
	s, ok := strings.CutPrefix(addr, routePrefix)
	if !ok {
		return 0, false
	}
	id, err := strconv.ParseUint(s, 10, 64)
	return id, err == nil && id != 0
}

// addRoute gives c, whose handshake is done, its route. It returns false
// if the transport is closing.
func (t *Transport) addRoute(c *conn) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return false
	}
	t.route++
	c.route = t.route
	t.routes[c.route] = c
	return true
}

// sendRoute queues m on the connection of route id.
func (t *Transport) sendRoute(id uint64, m *Message, done chan error) error {
	t.mu.Lock()
	c, closed := t.routes[id], t.closed
	t.mu.Unlock()
	switch {
	case closed:
		return ErrClosed
	case c == nil:
		return fmt.Errorf("send to %s: %w", routePrefix+strconv.FormatUint(id, 10), ErrNoRoute)
	}
	err := c.enqueue(m, done)
	if err == errConnDead {
		return fmt.Errorf("send to %s (%s): %w", c.addr, c.peer, ErrNoRoute)
	}
	return err
}
