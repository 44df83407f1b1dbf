// Package netnstest makes network namespaces for tests, so that processes
// of one machine sit on separate addresses as separate machines on a LAN
// do: on a virtual bridge (Bridged, whose ports a test sets down to cut a
// host off) or each behind a TUN device that a user-space network
// emulator (package netem) forwards between (Emulated, for delay and
// loss, which this machine's kernel cannot make: it lacks netem).
//
// A test that needs them is skipped, saying why, where they cannot be
// made (not root, no ip command, no veth or TUN support); where
// TSYS_REQUIRE_NETNS is set (.ci/run sets it on a machine that can make
// them) it fails instead, so that CI cannot pass by skipping. It is a
// test helper: only _test.go files import it (internal/layering).
package netnstest
