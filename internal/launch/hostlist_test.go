package launch

import (
	"slices"
	"strings"
	"testing"
)

func TestExpandHosts(t *testing.T) {
	for _, c := range []struct {
		in   string
		want string // the names, space-separated; "" for an error
	}{
		{"n1", "n1"},
		{"n[1-3]", "n1 n2 n3"},
		{"n[01-04,07]", "n01 n02 n03 n04 n07"},
		{"n[8-10]", "n8 n9 n10"},
		{"n[08-10]", "n08 n09 n10"},
		{"n[001-10]", "n001 n002 n003 n004 n005 n006 n007 n008 n009 n010"},
		{"n[9-010]", "n9 n10"},
		{"rack[1-2]-n[1-3]", "rack1-n1 rack1-n2 rack1-n3 rack2-n1 rack2-n2 rack2-n3"},
		{"n[1-2][3-4]", "n13 n14 n23 n24"},
		{"a,b[1-2],c", "a b1 b2 c"},
		{"gpu[1-2],cpu[07,09]", "gpu1 gpu2 cpu07 cpu09"},
		{"n[1-3],n2", "n1 n2 n3 n2"},
		{"[1-2]", "1 2"},
		{"a,,b", "a b"},
		{"n[00]", "n00"},
		{"host-a.example.org", "host-a.example.org"},
		{"n[1-2]x", "n1x n2x"},
		// errors
		{"", ""},
		{",", ""},
		{"n[3-1]", ""},
		{"n[]", ""},
		{"n[1-2", ""},
		{"n1-2]", ""},
		{"n[a]", ""},
		{"n[-1]", ""},
		{"n[1-]", ""},
		{"n[1--2]", ""},
		{"n[1-2[3]]", ""},
		{"n[0-99999999999]", ""},
		{"a[0-9999]b[0-9999]", ""},
	} {
		got, err := ExpandHosts(c.in)
		if c.want == "" {
			if err == nil {
				t.Errorf("ExpandHosts(%q) = %q, want an error", c.in, got)
			}
			continue
		}
		if err != nil || !slices.Equal(got, strings.Fields(c.want)) {
			t.Errorf("ExpandHosts(%q) = %q, %v; want %s", c.in, got, err, c.want)
		}
	}
}

// FuzzExpandHosts: no list makes it panic or exceed its bound, a list it
// accepts names only hosts without brackets or commas, and a list of
// plain names is itself.
func FuzzExpandHosts(f *testing.F) {
	for _, s := range []string{"n[01-04,07]", "rack[1-2]-n[1-3]", "a,b", "n[1-2", "x[9-010]", "[", "]", "n[1-3]]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		hosts, err := ExpandHosts(s)
		if err != nil {
			return
		}
		if len(hosts) == 0 || len(hosts) > maxHosts {
			t.Fatalf("ExpandHosts(%q): %d hosts", s, len(hosts))
		}
		for _, h := range hosts {
			if strings.ContainsAny(h, "[],") {
				t.Fatalf("ExpandHosts(%q) names %q", s, h)
			}
		}
		if !strings.ContainsAny(s, "[]") {
			var plain []string
			for _, p := range strings.Split(s, ",") {
				if p = strings.TrimSpace(p); p != "" {
					plain = append(plain, p)
				}
			}
			if !slices.Equal(hosts, plain) {
				t.Fatalf("ExpandHosts(%q) = %q, want %q", s, hosts, plain)
			}
		}
	})
}

func TestExpandCounts(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []int
	}{
		{"1", []int{1}},
		{"1(x3)", []int{1, 1, 1}},
		{"2(x3),1", []int{2, 2, 2, 1}},
		{"4,2(x2)", []int{4, 2, 2}},
		{"", nil},
		{"x", nil},
		{"2(x0)", nil},
		{"2(x3", nil},
		{"-1", nil},
	} {
		got, err := ExpandCounts(c.in)
		if (c.want == nil) != (err != nil) || !slices.Equal(got, c.want) {
			t.Errorf("ExpandCounts(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
}
