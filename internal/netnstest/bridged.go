package netnstest

import (
	"fmt"
	"testing"
)

// Bridged makes n namespaces on one virtual bridge, removed when the test
// ends. Each host's link address is fixed (MAC) and, with static, every
// host knows every other's for good: without that, a neighbour given up
// on during a cut is asked for again once a second, which adds up to a
// second to a cut on one link only.
func Bridged(t testing.TB, n int, static bool) *Hosts {
	t.Helper()
	id, subnet := newSet(t)
	bridge := fmt.Sprintf("tsysbr%d", id)
	h := &Hosts{}
	t.Cleanup(func() { IP("link", "del", bridge) })
	if err := IP("link", "add", bridge, "type", "bridge"); err != nil {
		Cannot(t, "cannot make a virtual bridge here: %v", err)
	}
	if err := IP("link", "set", bridge, "up"); err != nil {
		t.Fatal(err)
	}
	h.addNamespaces(t, id, subnet, n, "tsv%d-%d", [][]string{
		{"link", "add", "{dev}", "address", "02:00:00:00:c0:{i}", "type", "veth", "peer", "name", "{dev}b"},
		{"link", "set", "{dev}", "netns", "{ns}"},
		{"link", "set", "{dev}b", "master", bridge, "up"},
		{"-n", "{ns}", "addr", "add", "{addr}/24", "dev", "{dev}"},
		{"-n", "{ns}", "link", "set", "{dev}", "up"},
		{"-n", "{ns}", "link", "set", "lo", "up"},
	})
	for i := range h.Names {
		h.Links = append(h.Links, h.Devs[i]+"b")
	}
	if static {
		for i := range h.Names {
			for j := range h.Names {
				if i != j {
					if err := IP("-n", h.Names[i], "neigh", "replace", h.Addrs[j], "lladdr", mac(j), "nud", "permanent", "dev", h.Devs[i]); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
	}
	return h
}

// mac is host i's link address, as Bridged gives it.
func mac(i int) string { return fmt.Sprintf("02:00:00:00:c0:%d", i) }

// SetLink sets host i's bridge port up or down: down, nothing reaches the
// host or leaves it, and its sockets do not hear of it.
func (h *Hosts) SetLink(t testing.TB, i int, up bool) {
	t.Helper()
	state := "down"
	if up {
		state = "up"
	}
	if err := IP("link", "set", h.Links[i], state); err != nil {
		t.Fatal(err)
	}
}
