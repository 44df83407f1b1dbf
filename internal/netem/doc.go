// Package netem is a user-space network emulator for tests: it joins
// network namespaces, each behind a TUN device, and forwards the IPv4
// packets each sends to the namespace that owns their destination
// address, after a delay (a mean plus or minus a uniform jitter), or
// drops them at a loss rate, or drops everything to and from a namespace
// that is cut off. It exists because this machine's kernel has no netem
// qdisc (`tc qdisc ... netem`: "Specified qdisc kind is unknown") and no
// iptables: it is a delaying queue in user space over TUN, not the
// kernel's netem.
//
// A flow's packets keep their order: each packet of a (source,
// destination) pair leaves no sooner than the one before it, as on a real
// path, where reordering is rare. The kernel's netem reorders under
// jitter, which would measure TCP's recovery from reordering rather than
// a path's latency.
//
// The decisions (Policy) and the queue of delayed packets (Queue) take
// the time as an argument and draw from a seeded generator, so their
// tests need no clock and no namespaces; the Emulator is the thin loop
// that reads packets, asks them, and writes. The queue is bounded: past
// its bound a packet is dropped, as a router's full buffer drops it.
//
// It is test infrastructure: the library never links it, and only
// _test.go files import it (internal/layering).
package netem
