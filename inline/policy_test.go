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

func TestAllowCCallKeeping(t *testing.T) {
	for _, c := range []struct {
		p            Policy
		ready, extra int
		allow        bool
	}{
		{LoadK(2), 2, 0, true},
		{LoadK(2), 2, 16, false}, // peers want work: keep 18 ready
		{LoadK(2), 18, 16, true},
		{Never(), 1 << 20, 0, false},
		{Everything(), 0, 16, true}, // the serial elision stays serial
	} {
		if got := c.p.AllowCCallKeeping(c.ready, c.extra); got != c.allow {
			t.Errorf("%s.AllowCCallKeeping(%d, %d) = %v, want %v", c.p, c.ready, c.extra, got, c.allow)
		}
	}
}
