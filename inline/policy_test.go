package inline

import "testing"

func TestParse(t *testing.T) {
	cases := []struct {
		in    string
		want  string
		ready int
		allow bool
	}{
		{"load:3", "load:3", 2, false},
		{"load:3", "load:3", 3, true},
		{"load", "load:2", 2, true},
		{"load:0", "load:0", 0, true},
		{"off", "off", 1 << 40, false},
		{"always", "always", 0, true},
	}
	for _, c := range cases {
		p, err := Parse(c.in)
		if err != nil {
			t.Fatalf("Parse(%q): %v", c.in, err)
		}
		if p.String() != c.want {
			t.Errorf("Parse(%q).String() = %q, want %q", c.in, p.String(), c.want)
		}
		if got := p.AllowCCall(c.ready); got != c.allow {
			t.Errorf("%s.AllowCCall(%d) = %v, want %v", c.in, c.ready, got, c.allow)
		}
	}
}

func TestParseRejects(t *testing.T) {
	for _, in := range []string{"", "load:", "load:-1", "load:x", "sometimes", "LOAD:2"} {
		if _, err := Parse(in); err == nil {
			t.Errorf("Parse(%q) accepted a bad policy", in)
		}
	}
}
