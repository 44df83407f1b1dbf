package membership

import (
	"errors"
	"fmt"
)

var (
	// ErrClosed is returned by methods called after Shutdown.
	ErrClosed = errors.New("membership: shut down")

	// ErrNoSeed is wrapped by Start's error when no seed of Config.Join
	// could be reached within Config.JoinTimeout.
	ErrNoSeed = errors.New("no seed reachable")

	// ErrUnresolved is wrapped by Start's error, beside ErrNoSeed, when
	// the host name of every seed failed to resolve (no such host) until
	// Config.JoinTimeout: a name that is wrong, rather than a network
	// that failed. A name is tried until then, since one may resolve
	// only once its node has started (a Kubernetes pod's).
	ErrUnresolved = errors.New("no seed's host name resolves")

	// ErrNotGossip is wrapped by Start's error when a seed answered in
	// another protocol than gossip: the address of something else, most
	// often a node's task address or its --http address.
	ErrNotGossip = errors.New("the seed does not speak gossip")

	// ErrVersionMismatch is wrapped by a *VersionError: a peer speaks
	// another protocol version, or its version cannot be read.
	ErrVersionMismatch = errors.New("protocol version mismatch")

	// ErrKeyMismatch is wrapped by Start's error when the seed and this node
	// do not share a cluster key (one side has no key or another key).
	ErrKeyMismatch = errors.New("cluster key mismatch")

	// ErrNameInUse is wrapped by Start's error when a live member already
	// has this node's name at another address.
	ErrNameInUse = errors.New("node name already in use")

	// ErrNoKey is returned by Start when Config.Key is nil and Config.Bind
	// is not a loopback address: gossip would travel unencrypted.
	ErrNoKey = errors.New("no cluster key")
)

// VersionError describes a refused peer: Remote is the version its metadata
// carries, Local this node's. If Decode is non-nil the peer's metadata could
// not be decoded at all (RemoteKnown tells whether its version byte could
// still be read).
type VersionError struct {
	Node        string // peer's node name
	Addr        string // peer's gossip host:port
	Local       uint8
	Remote      uint8
	RemoteKnown bool
	Decode      error
}

func (e *VersionError) Error() string {
	if e.Decode != nil && !e.RemoteKnown {
		return fmt.Sprintf("%v: node %q (%s) has undecodable metadata (%v), so its protocol version is unknown; this node speaks v%d",
			ErrVersionMismatch, e.Node, e.Addr, e.Decode, e.Local)
	}
	return fmt.Sprintf("%v: this node speaks v%d, node %q (%s) speaks v%d; all nodes of a cluster must run the same protocol version",
		ErrVersionMismatch, e.Local, e.Node, e.Addr, e.Remote)
}

// Unwrap makes errors.Is(err, ErrVersionMismatch) true.
func (e *VersionError) Unwrap() error { return ErrVersionMismatch }

// nameError reports that a live member already uses this node's name.
type nameError struct {
	Name, Addr, Other string
}

func (e *nameError) Error() string {
	return fmt.Sprintf("%v: %q is alive at %s (this node is %s); pick another --name or wait until the old node is declared dead",
		ErrNameInUse, e.Name, e.Other, e.Addr)
}

func (e *nameError) Unwrap() error { return ErrNameInUse }
