package netnstest

import (
	"net/netip"
	"os"
	"testing"

	"github.com/tsys-go/tsys/internal/netem"
)

// Emulated makes n namespaces, each reaching the others only through a
// TUN device, and a user-space network emulator forwarding between those
// devices under cfg (package netem: this kernel has no netem qdisc). The
// emulator and the namespaces are removed when the test ends.
func Emulated(t testing.TB, n int, cfg netem.Config) (*Hosts, *netem.Emulator) {
	t.Helper()
	if _, err := os.Stat("/dev/net/tun"); err != nil {
		Cannot(t, "the network emulator needs TUN devices: %v", err)
	}
	id, subnet := newSet(t)
	h := &Hosts{}
	h.addNamespaces(t, id, subnet, n, "tst%d-%d", [][]string{
		{"-n", "{ns}", "tuntap", "add", "dev", "{dev}", "mode", "tun"},
		{"-n", "{ns}", "addr", "add", "{addr}/24", "dev", "{dev}"},
		{"-n", "{ns}", "link", "set", "{dev}", "up"},
		{"-n", "{ns}", "link", "set", "lo", "up"},
	})
	ports := make([]netem.Port, n)
	for i := range n {
		f, err := netem.OpenTUN(h.Names[i], h.Devs[i])
		if err != nil {
			for _, p := range ports[:i] {
				p.Dev.Close()
			}
			t.Fatal(err)
		}
		ports[i] = netem.Port{Addr: netip.MustParseAddr(h.Addrs[i]), Dev: f}
	}
	em, err := netem.New(cfg, ports)
	if err != nil {
		for _, p := range ports {
			p.Dev.Close()
		}
		t.Fatal(err)
	}
	t.Cleanup(func() { em.Close() })
	return h, em
}
