// Package transport carries tsys messages between nodes: persistent TCP
// connections with length-prefixed, versioned frames of small messages,
// batched, compressed above a threshold, and, with a cluster key,
// authenticated and encrypted. Membership is elsewhere; this package only
// moves messages.
//
// # Use
//
//	t, err := transport.Listen(transport.Config{Name: "n1", Bind: "10.0.0.1:7000", Key: key}, handle)
//	...
//	err = t.Send("10.0.0.2:7000", &transport.Message{Type: myType, Body: payload})
//
// Send encodes the message at once (the caller may reuse it), queues it on
// the connection to that address, dialled on first use and kept, and
// returns; the connection's writer goroutine writes what has piled up as
// one frame. A small message on a connection that has been quiet for a
// moment is written by Send itself, with one write that does not wait (a
// full socket's share is left to the writer), which spares a round trip
// two goroutine hand-offs (BenchmarkRoundTrip); messages sent in a burst
// still go through the writer, batched. Failures after queuing (dial, handshake, write, peer gone)
// are logged and counted in Stats, the messages queued on that connection
// are dropped, and the next Send dials again. SendSync waits until the
// message is written and returns such failures, with clear texts:
//
//	dial 10.0.0.2:7000: connection refused
//	handshake with 10.0.0.2:7000: peer "n2" failed authentication: cluster keys differ
//	handshake with 10.0.0.2:7000: peer "n2" uses a cluster key, this node has none
//	handshake with 10.0.0.2:7000: read hello: peer speaks tsys protocol v2, this node v1
//
// The Handler is called for every received message on the reader goroutine
// of the connection it came on, one message at a time per connection, in
// the order the peer sent them. It must not block for long (the peer's
// further messages wait behind it); it may call Send and SendSync, but not
// Close. The Message and its body are the handler's to keep.
//
// The transport reads no message's body: the types from FirstUserType on
// and what their bodies hold are its user's (package cluster keeps the
// vocabulary of tsys's nodes). The types below belong to the handshake.
//
// A node dials its own connection to each peer it sends to, so two nodes
// that talk both ways use two connections: node A's requests and node B's
// replies travel on different ones, replies being sent to the peer's
// listening address from membership. A node dials only such addresses,
// never one a message names: a reply to a sender membership does not know
// goes back on the connection its message came on, to ReplyAddr(m), which
// Send queues on that connection, dialling nothing and resolving no name
// (ErrNoRoute once the connection has closed). from, the peer's node name
// from the handshake, is there to tell who spoke.
//
// # Wire format
//
// A connection carries frames:
//
//	offset  size  field
//	0       4     magic "TSYS"
//	4       1     protocol version (ProtocolVersion = 8)
//	5       1     flags: bit 0 = payload compressed (s2 block format),
//	              bit 1 = payload sealed (see Encryption); other bits must be 0
//	6       4     payload length, big-endian, at most MaxFrame (default 64 MiB),
//	              and 16 more for a sealed payload's tag
//	10      n     payload
//
// The payload (opened, if sealed, then decompressed, which must also fit
// MaxFrame) is one or more messages back to back, each encoded by
// AppendMessage:
//
//	type     1 byte (1 Hello and 2 Auth, the handshake's; 3 to 255 the user's; 0 invalid)
//	body     uvarint length + bytes (<= MaxBody = 64 MiB)
//
// An empty message is 2 bytes.
//
// A writer puts everything queued for a peer into frames of up to 1 MiB of
// payload (a larger message gets a frame of its own) and writes each with
// one write call. A reader that meets a wrong magic, another version, a
// length over MaxFrame, unknown flags, a truncated frame, a sealed frame
// that does not open (or a frame not sealed where it must be), a corrupt
// compressed payload, an empty frame or a message that does not decode
// closes the connection and logs why (slog, Warn, with node, peer_addr,
// peer and the reason, e.g. "protocol error: frame length 1073741824
// exceeds limit 67108864", at a bounded rate: see Threat model);
// Stats.ProtocolErrors counts these. Nothing that
// arrives from the network can make the process panic: DecodeMessage and
// the frame reader, plain and sealed, are fuzzed (FuzzDecodeMessage,
// FuzzReadFrame, FuzzReadSealedFrame). Memory is
// bounded too: a frame announcing more than it sends is read into a buffer
// that grows with what arrives.
//
// # Handshake
//
// Before any message is accepted each side of a new connection sends a
// Hello frame (its protocol version, flags with bit 0 set when it has a
// cluster key, its name, 32 random bytes of nonce) and reads the peer's.
// The handshake frames may hold 4 KiB at most. A node refuses:
//
//   - a peer of another version, seen in the frame's version byte before
//     anything else is parsed: "peer speaks tsys protocol v3, this node
//     v2" (so a v3 node can change everything after the first 5 bytes);
//   - a keyed peer when it has no key, and a keyless one when it has:
//     "peer "x" uses a cluster key, this node has none" and "... has no
//     cluster key, this node requires one" (ErrAuthMode);
//   - a peer that echoes its own nonce back (a reflected connection).
//
// With a key, each side then sends an Auth frame with the proof
//
//	HMAC-SHA256(key, "tsys transport auth v1\x00" || version || role ||
//	            peer nonce || own nonce || len+own name || len+peer name)
//
// where role is 'D' for the dialler and 'A' for the acceptor, and checks
// the peer's proof, computed with the peer's role and the nonces and names
// swapped; a mismatch is "peer "x" failed authentication: cluster keys
// differ" (ErrKeyMismatch). The nonce the verifier just drew makes every
// proof good for one connection only (no replay); the role makes a proof
// made as acceptor useless as a dialler's and vice versa, so an attacker
// cannot get a node to compute, as acceptor, the proof the attacker needs
// to present to that same node as dialler (reflection), nor the other way
// round. Both sides detect each of these refusals on their own, so each logs it
// (the acceptor counts it in Stats.RejectedConns, the dialler in
// DialFailures and returns it from SendSync). A refusing side shuts down
// its writing half and lingers 200 ms before closing, so the peer reads
// the Hello telling it why rather than a reset.
//
// Without a key (Config.Key nil) there is no authentication and frames go
// plain, so Listen accepts only loopback addresses, for one-machine
// clusters and tests:
//
//	listen 0.0.0.0:7000: no cluster key: refusing to listen on a non-loopback address without one (...)
//
// # Strangers
//
// Anyone who can reach the task port can open connections to it, and a
// connection costs the node a goroutine, a read buffer and a place in the
// handshake until it has proved itself. So inbound handshakes are
// budgeted by source address (an IPv4 address, or an IPv6 /64, which one
// host commonly holds whole): at most 8 from one source run at once, and
// at most 128 over all sources.
//
// A stranger may share its address with real peers (another process on a
// one-machine cluster's host, all on 127.0.0.1; a NAT), and before any
// proof what tells a peer's connection from a stranger's is progress: a
// peer sends its Hello as soon as its connect returns and its Auth one
// round trip later, a stranger holding a connection sends nothing, and
// one that forges a Hello (which needs no key) cannot make the Auth. So
// a handshake that has read nothing for a quarter of HandshakeTimeout
// (250 ms by default), and has no bytes waiting in its socket, is idle:
// a new connection of its source, when the source's 8 are taken, takes
// the slot of the idlest, which is closed (reset). Otherwise the new
// connection waits, parked (its socket only: nothing is read, no
// goroutine runs), and a slot that frees goes to the newest parked
// connection, one whose Hello has arrived first; a parked connection
// whose bytes have arrived also takes an idle handshake's slot ahead of
// the newcomer. Nodes that share an address dial a node all at once when
// a job starts and must not be refused for it, and a stranger that holds
// connections is better held, quietly, than refused into reopening them
// as fast as it can, which would crowd the kernel's queue of connections
// not yet accepted, where a peer's connection waits in line with the
// stranger's. A source may have 512 connections parked and the node 2048
// (at most a quarter of the process's limit on open files); a source past
// its 512 lets go of one of its oldest parked connections whose Hello has
// not arrived (a peer's has; a stranger's held connections are empty and
// its garbage is no Hello), and a connection past the
// node's 2048, or past the 128 handshakes with none idle, is refused at
// once: reset before anything is read.
// The refusals and the closed idle connections are counted in
// Stats.OverBudgetConns (the metric
// tsys_transport_errors_total{kind="over_budget"}) and logged with the
// handshakes' own refusals from one bucket: at most 10 lines at once, then
// one a second, each saying how many were held back.
//
// An inbound connection must send its Hello within
// Config.HandshakeTimeout (DefaultHandshakeTimeout, 1 s) of its
// handshake's start, and with a key its Auth within a second
// HandshakeTimeout of our Hello check. The second is long for a peer,
// whose Hello leaves as soon as its connect returns: what it waits for is
// the two processes being scheduled, well under a second even on a
// machine loaded many times over, and a one-way trip, under a second
// across the world. The Auth needs a round trip more, each side to read
// the other's Hello and reply, hence a second of its own rather than a
// tighter bound on the whole. A refused connection's linger (above) is
// within its source's budget. The dialling side, whose connections no
// stranger holds, waits up to 10 s (or HandshakeTimeout, if longer) for a
// busy peer. A node refused by a peer's budget sees its dial fail ("read
// hello: ... connection reset by peer (is it a tsys task address? ...; or
// the node's handshakes from this address are all taken, by other
// connections from this host)"), logs it, and dials again at its next Send; the root of a
// job logs such a peer's error with "peer cannot take part in the job".
//
// So a stranger on a peer's address that holds idle connections, however
// many, costs the peer's handshake nothing: the peer's connection is the
// newest, and a held one is idle (TestStrangerOnPeersAddress; with real
// processes, cmd/tsys's TestStrangerOnPeersAddressCannotKeepANodeOut, 300
// connections from 127.0.0.1 during 5 jobs). One that forges Hellos and
// reopens them as they close can look like a peer until the Auth, and
// delays a peer's handshake by about a HandshakeTimeout, well within the
// dialler's 10 s (TestForgedHellosKeepNoPeerOut). A stranger with many
// addresses competes for the 128 the same way. Against a stranger that
// can reach the port at all, the task port belongs behind a firewall that
// admits only the cluster's hosts.
//
// # A bad network
//
// A connection cut for a while (a failed switch, a partition) resumes
// within a second of the network's return rather than at TCP's next
// doubling back-off (1.2 s after a 5 s cut, 5.6 s after a 7 s one): every
// connection caps TCP's retransmission timeout at 1 s (TCP_RTO_MAX_MS,
// Linux 6.15 and later; elsewhere TCP keeps its own). One whose data goes
// 10 s unacknowledged is closed (TCP_USER_TIMEOUT), and an idle one is
// probed after 5 s (keep-alive) and closed within 15 s if nothing answers,
// so a vanished peer's connection ends and the next Send dials anew.
// keepalive.go derives these; TestCutResumes measures them across network
// namespaces.
//
// # Encryption
//
// With a cluster key, every frame after the handshake is sealed: its
// payload, compressed first if it is, encrypted and authenticated with
// AES-256-GCM, the 16-byte tag after it within the frame's length, and the
// frame's header (magic, version, flags, length) authenticated with it.
// Each direction of each connection has its own key, derived once both
// proofs have verified:
//
//	prk = HKDF-Extract(SHA-256, salt = dialler's nonce || acceptor's nonce, secret = cluster key)
//	key = HKDF-Expand(SHA-256, prk, "tsys transport session v1\x00" || version ||
//	                  len+dialler's name || len+acceptor's name || "D->A" or "A->D", 32)
//
// and frame i of a direction is sealed with the 96-bit nonce i
// (big-endian), which both ends count. So:
//
//   - a frame altered in any bit (header included), cut short, replayed,
//     reordered, dropped or taken from another connection (whose nonces,
//     hence keys, differ) does not open: "protocol error: sealed frame 3
//     does not open: altered, replayed, reordered or not from the peer";
//     the receiver closes the connection, logs it and counts it in
//     ProtocolErrors, and the sender's next Send dials a new connection
//     with new keys;
//   - a frame reflected back at its sender does not open there: the other
//     direction has the other key;
//   - a keyed connection takes no unsealed frame, so a man in the middle
//     cannot strip the seal, and a keyless one no sealed frame;
//   - a man in the middle who cuts the connection between frames ends it
//     as a network failure would: the messages in flight are lost, as with
//     any lost connection, and none is forged;
//   - a key that has sealed 2^36 bytes is replaced, at the same frame on
//     both ends, by HKDF-Expand(key, "tsys transport rekey v1", 32), well
//     within what AES-GCM allows one key; and a direction whose count of
//     frames would wrap (2^64: no connection lives so long) is closed
//     rather than reuse a nonce, the next Send dialling anew.
//
// Why so: the handshake already authenticates both sides against the
// cluster key with a fresh nonce from each, so keys derived from those
// need no more round trips, and each side's own nonce guarantees it keys
// it has never used, whatever the other side sends. TLS would need
// certificates to manage (Go's crypto/tls has no pre-shared-key mode), and
// Noise with a pre-shared key a cryptographic module from outside the
// standard library; this is crypto/hkdf, crypto/aes and crypto/cipher
// only, and AES-GCM runs on a processor's AES instructions where it has
// them (amd64 and arm64 have for a decade). Sealing a frame rather than a
// message costs one seal a write. What it costs is measured in
// bench/README.md, "Encrypted task transport".
//
// What an observer still sees: the handshake (versions, node names,
// nonces, proofs), and each frame's size and time. Compression happens
// before sealing, so a frame's size depends on its content: one who could
// choose part of a frame's messages might learn of the rest from sizes.
// A cluster's frames carry its own jobs' tasks, which outsiders do not
// choose; where they might, set CompressThreshold to -1. Gossip
// (package membership) is encrypted with the same cluster key by
// memberlist.
//
// # Threat model
//
// A keyless cluster (no Config.Key) trusts every process that can reach
// its ports, which Listen, and membership's gossip, keep to loopback: it
// is for one machine whose local users are trusted, and for tests. There
// the node's name in a Hello is a claim and any local process may speak
// as a member: send a job's tasks or results, ask for the node's state,
// ask it to drain or shut down. What a stranger there cannot do is make
// the node act outside the node: the node dials only addresses its own
// membership or its own command line gave it, never one a message names
// (replies to a sender membership does not know go back on its
// connection, ReplyAddr), so it cannot be made to connect to a port of a
// stranger's choosing and introduce itself there, nor to look a name up
// in DNS; and the protections below hold for it as for a keyed node.
//
// A keyed cluster trusts the holders of the key and no one else. A
// stranger without the key can open connections and send Hellos, which
// are refused at the Auth; it cannot have a message handled, read or
// alter what peers send (only each frame's size and time show, see
// Encryption), replay a frame, or join the gossip, whose addresses are
// therefore the key holders' own. A holder of the key is a member in
// full: protect the key file as the cluster itself.
//
// Either way, what comes from the network cannot make the process panic
// (the decoders are fuzzed), costs memory bounded by the frame limit and
// the handshake budgets (Strangers), and costs log lines at a bounded
// rate: every line a stranger can cause goes through a bucket of its kind
// (LimitedLog; the refusals of a connection, whatever the reason, are one
// kind), 10 lines at once and then one a second, each saying in
// not_logged how many of its kind were held back. Against what a network can do to a
// cluster (delay, drop or cut its traffic) and against a stranger with
// many addresses, the task and gossip ports belong behind a firewall
// that admits only the cluster's hosts.
//
// # Compression
//
// A frame whose payload has at least CompressThreshold bytes (default
// 4 KiB) is compressed with s2 (github.com/klauspost/compress/s2, block
// format); it goes compressed only if that saves at least 1/8, so
// incompressible data (already compressed or random) goes as it is, after
// a cheap attempt.
//
// The choice is measured (BenchmarkCompress in compress_bench_test.go; the
// figures are in bench/README.md, "Compressing frames"), on the payloads
// that cross nodes: rendered tiles of apps/rt (testdata/tiles.rgb), random
// bytes, and batches of the scheduler's small messages. The question is
// the CPU spent per byte saved against a byte's wire time (8 ns at
// 1 Gbit/s). On rendered images s2 spends less than that per saved byte,
// so it pays on gigabit Ethernet; zstd saves a few bytes more, but spends
// about a byte's wire time of CPU on each, break-even at best, and CPU is
// what a work-stealing runtime is short of. Hence s2. Batches of small
// messages compress poorly and cost s2 more per saved byte than the wire
// does at any size, and frames under 4 KiB are almost always such
// batches, while result payloads worth compressing (a 64x64 tile is
// 12 KiB) are larger. Hence the 4 KiB threshold. Where the wire is
// cheaper than the CPU (all nodes on one machine, or 10 Gbit/s and
// faster) set CompressThreshold to -1.
package transport
