// Package membership tells a tsys node which other nodes (OS processes) form
// its cluster. It wraps hashicorp/memberlist (SWIM gossip): joining through
// seed addresses, per-node metadata, join/leave/failure/update events and
// the cluster key. Task traffic does not go through memberlist (see
// internal/net/transport); only membership and the small metadata below are
// gossiped.
//
// # Metadata
//
// Each node gossips a Meta: its task-transport address, a zone label, its
// protocol version and a Load summary. It is encoded compactly (about 20
// bytes plus the two strings; memberlist allows 512) with the version in the
// second byte, so that any future layout can still be read far enough to
// name the version. Decoding never panics. SetLoad, SetZone and SetTransport
// change it; broadcasts are coalesced to at most one per 100 ms and never
// block the caller.
//
// # Version check
//
// All nodes of a cluster must speak the same ProtocolVersion (set by
// Config.Meta.Version, where 0 means ProtocolVersion; tests set another to
// simulate a mismatch). Two memberlist hooks enforce it:
//
//   - The merge delegate runs on both ends of a join's state exchange: the
//     seed checks the joiner's metadata, the joiner checks every live node
//     the seed sends back. Refusing cancels the merge, so the joiner's
//     memberlist Join fails with the refusal, the seed logs a warning
//     "membership: refusing node" naming the joiner and both versions, and
//     Start shuts the joiner down and returns (errors.Is(err,
//     ErrVersionMismatch); errors.As gives a *VersionError).
//   - The alive delegate filters every alive message (gossip, push/pull), so
//     a node of another version that gets in some other way is still never
//     admitted; each refusal is logged (at most once per node per 30 s).
//
// The joiner's error reads:
//
//	join 127.0.0.1:7946: refused: protocol version mismatch: this node speaks v2, node "a" (127.0.0.1:7946) speaks v1; all nodes of a cluster must run the same protocol version
//
// A node whose metadata does not decode is refused the same way ("has
// undecodable metadata ... its protocol version is unknown").
//
// # Cluster key
//
// Config.Key (16, 24 or 32 bytes) becomes memberlist's keyring: every packet
// and stream is AES-GCM encrypted and unencrypted input is rejected. Without
// a key, Start accepts only a loopback Bind (ErrNoKey otherwise). memberlist
// detects a key mismatch while decrypting the seed's answer; Start maps it
// to ErrKeyMismatch with one of:
//
//	join ADDR: cluster key mismatch: the seed uses a cluster key and this node has none; all nodes need the same cluster key (tsys: the same --key-file)
//	join ADDR: cluster key mismatch: this node has a cluster key and the seed has none, or the seed is not a gossip address (...); all nodes need the same cluster key (tsys: the same --key-file)
//	join ADDR: cluster key mismatch: the seed's cluster key differs from this node's; all nodes need the same cluster key (tsys: the same --key-file)
//
// The seed only logs memberlist's own message (debug level).
//
// # Joining
//
// Start contacts every seed of Config.Join; one success is enough. A seed
// without a port is dialled on DefaultPort (7946), never on this node's
// own port; a node whose only answering seed is itself fails at once with
// ErrSelfJoin rather than waiting alone.
// Unreachable seeds are retried with backoff (100 ms doubling to 1 s) until
// Config.JoinTimeout (default 5 s), so nodes may be started in any order.
// Refusals (version, key, duplicate name) end Start at once. When no seed
// answers:
//
//	join 127.0.0.1:1: no seed reachable (connection refused); check --join
//
// When every seed's host name failed to resolve until then, the error
// wraps ErrUnresolved too: a wrong name, not a failed network (a name is
// tried all that time, since a node's name may resolve only once it has
// started). A seed that answers in another protocol is refused at once
// with ErrNotGossip, saying what it likely is: a node's task address
// (its answer begins with the transport's magic), or its --http address
// (an HTTP answer; a keyed node, which reads no byte of an answer in
// the clear, asks the seed in HTTP to tell).
//
// A live member with the same name at another address is refused too
// (ErrNameInUse). A port already taken gives "bind 127.0.0.1:7946: address
// already in use" (errors.Is(err, syscall.EADDRINUSE)).
//
// # Events
//
// onEvent receives Joined, Updated and Left for other nodes (never this
// one), in memberlist's order, on a single goroutine fed by an unbounded
// queue: memberlist calls its event hooks under its node lock, the queue
// decouples them, so onEvent may call Members and the other methods (but not
// Shutdown, which waits for that goroutine). Members is served from a copy
// kept by those hooks, never from memberlist's internal nodes (which it
// mutates concurrently).
//
// Left carries Failed: memberlist does not tell its hooks whether a node left
// or was declared dead, so Leave first marks the node "leaving" (peers see
// an Updated event with Member.Leaving): it tells each live member so over
// memberlist's stream and gossips the mark in its metadata
// (leavenotice.go), and only then sends memberlist's leave message. The
// mark stands until the member is gone, whatever metadata gossip brings
// meanwhile; a member told before gossip brought the node reports it
// leaving from its Joined. A Left without the mark is reported as Failed=true: a peer
// that neither word reached before the leave (lost packets, a member that
// could not be dialled) reports a graceful leave as failed.
//
// # Timing
//
// Default timing is memberlist's LAN profile (probe every 1 s, suspicion
// multiplier 4). A member that stops answering is declared dead within
// Config.DeadWithin: 2 x (members-1) probe intervals until its probes
// have failed, then SuspicionMult x max(1, log10(members)) intervals of
// suspicion, 10 s for 4 members, 6 s for 2 (not the 4 x log10(4) x 1 s =
// 2.4 s that memberlist's formula without the max and the probe's wait
// suggest). DeadWithin says what stretches it further: fewer confirmations
// than memberlist expects (up to 6 times the suspicion), and a loaded
// node's own slow probing (up to 8 times the interval). Config.Fast (tests, loopback) uses probe interval 200 ms,
// probe timeout 100 ms, gossip every 50 ms, suspicion multiplier 2 (400 ms
// below 10 nodes, no confirmations awaited), push/pull every 5 s: a stopped
// node is reported Left/Failed a second or so after it stops.
//
// # After a partition
//
// A node cut off for longer than failure detection is declared dead by
// the others and declares them dead in turn; memberlist gossips to a dead
// node only for a short while (2 s fast, 30 s LAN), so neither side would
// ever speak to the other again. A node therefore asks each peer it
// declared dead (not one that left) to join it again, at the gossip
// address gossip gave it, once a second for 10 minutes (reconnect.go): the
// first exchange that gets through makes each side refute its death, and
// both report the other Joined again.
//
// # Shutdown
//
// Shutdown stops this package's goroutines before returning, and
// memberlist's (its listeners synchronously; its tickers and handlers within
// about a probe interval). Without Leave, peers declare the node failed.
package membership
