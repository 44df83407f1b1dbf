package uts

import (
	"bytes"
	"encoding/binary"
	"flag"
	"os"
	"strings"
	"testing"
)

// smallTrees are the published trees cheap enough (~4M nodes) to check on
// every run; they are the proof that the definition is bit-exact.
var smallTrees = []string{"T1", "T2", "T3", "T4", "T5"}

func mustNamed(t testing.TB, name string) Tree {
	t.Helper()
	tr, err := Named(name)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func published(tr Tree) Counts {
	return Counts{Nodes: tr.Nodes, Leaves: tr.Leaves, MaxDepth: tr.MaxDepth}
}

func TestPublishedTrees(t *testing.T) {
	for _, name := range smallTrees {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tr := mustNamed(t, name)
			if err := tr.Params.Validate(); err != nil {
				t.Fatalf("%s: %v", tr.Params, err)
			}
			if got, want := Serial(tr.Params), published(tr); got != want {
				t.Errorf("Serial(%s) = %+v, want %+v", tr.Params, got, want)
			}
		})
	}
}

// A task version splits at the root and merges with Add; the pieces must
// add up to the published whole, including the binomial root's 2000-way
// fan-out (T3) and the hybrid root (T4).
func TestSearchFromRootChildren(t *testing.T) {
	for _, name := range smallTrees {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tr := mustNamed(t, name)
			p := tr.Params
			root := p.Root()
			nc := p.NumChildren(&root)
			total := Counts{Nodes: 1, MaxDepth: root.Height}
			if nc == 0 {
				total.Leaves = 1
			}
			for i := range nc {
				c := p.Child(&root, i)
				if c.Height != 1 {
					t.Fatalf("child height %d, want 1", c.Height)
				}
				total.Add(p.SearchFrom(c))
			}
			if want := published(tr); total != want {
				t.Errorf("%s: root + SearchFrom(children) = %+v, want %+v", name, total, want)
			}
		})
	}
}

// walk uses only the exported per-node API (NumChildren computes the shape
// from scratch, unlike the table inside Serial), as a task version will.
func walk(p *Params, n *Node, c *Counts) {
	c.Nodes++
	c.MaxDepth = max(c.MaxDepth, n.Height)
	k := p.NumChildren(n)
	if k == 0 {
		c.Leaves++
	}
	for i := range k {
		ch := p.Child(n, i)
		walk(p, &ch, c)
	}
}

func TestPublicAPIWalk(t *testing.T) {
	// The transcendental shapes and the hybrid switch are where the two
	// code paths could drift apart; UTS_LARGE=1 walks all five.
	names := []string{"T2", "T4"}
	if os.Getenv("UTS_LARGE") != "" {
		names = smallTrees
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tr := mustNamed(t, name)
			root := tr.Params.Root()
			var got Counts
			walk(&tr.Params, &root, &got)
			if want := published(tr); got != want {
				t.Errorf("%s: public API walk = %+v, want %+v", name, got, want)
			}
		})
	}
}

// UTS_LARGE=1 checks the large trees (about four minutes, mostly T1XL).
func TestLargeTrees(t *testing.T) {
	if os.Getenv("UTS_LARGE") == "" || testing.Short() {
		t.Skip("set UTS_LARGE=1 to search T1L, T2L, T3L and T1XL")
	}
	for _, name := range []string{"T1L", "T2L", "T3L", "T1XL"} {
		tr := mustNamed(t, name)
		got := Serial(tr.Params)
		t.Logf("%s (%s): %+v", name, tr.Params, got)
		if want := published(tr); got != want {
			t.Errorf("%s: %+v, want %+v", name, got, want)
		}
	}
}

func TestGranularityKeepsTree(t *testing.T) {
	p := DefaultParams() // geometric linear, gen_mx 6: a few thousand nodes
	p.RootSeed = 7
	want := Serial(p)
	if want.Nodes < 100 {
		t.Fatalf("test tree too small: %+v", want)
	}
	p.Granularity = 3
	if got := Serial(p); got != want {
		t.Errorf("granularity 3: %+v, want %+v", got, want)
	}
	root := p.Root()
	q := p
	q.Granularity = 1
	if p.Child(&root, 5) != q.Child(&root, 5) {
		t.Error("granularity changed a child's state")
	}
}

func TestRootAndChildHash(t *testing.T) {
	// The seed goes big-endian into bytes 16..19 of the root message; a
	// different seed or byte order gives a different root.
	a, b := DefaultParams(), DefaultParams()
	a.RootSeed, b.RootSeed = 1, 1<<24
	if a.Root() == b.Root() {
		t.Error("root ignores the seed's byte order")
	}
	// Children depend on the parent state and index, not on the type.
	bin := DefaultParams()
	bin.Type = Binomial
	r := a.Root()
	if a.Child(&r, 3) != bin.Child(&r, 3) {
		t.Error("child state depends on the tree type")
	}
	if a.Child(&r, 3) == a.Child(&r, 4) {
		t.Error("children 3 and 4 share a state")
	}
}

func TestChildCaps(t *testing.T) {
	// The binomial root is the one node allowed more than MaxNumChildren.
	p := DefaultParams()
	p.Type, p.B0, p.Q, p.M = Binomial, 150.7, 1, 150
	root := p.Root()
	if got := p.NumChildren(&root); got != 150 {
		t.Errorf("binomial root: %d children, want floor(b0) = 150", got)
	}
	c := p.Child(&root, 0)
	if got := p.NumChildren(&c); got != MaxNumChildren {
		t.Errorf("binomial node with m=150, q=1: %d children, want %d", got, MaxNumChildren)
	}
	// A hybrid tree that is binomial from the start has no special root.
	p.Type, p.GenMx, p.ShiftDepth = Hybrid, 6, 0
	if got := p.NumChildren(&root); got != MaxNumChildren {
		t.Errorf("hybrid root (f=0): %d children, want %d", got, MaxNumChildren)
	}
	// A geometric node with a huge b_i is capped too.
	g := DefaultParams()
	g.B0 = 1e9
	root = g.Root()
	if got := g.NumChildren(&root); got > MaxNumChildren {
		t.Errorf("geometric root: %d children, cap is %d", got, MaxNumChildren)
	}
}

func TestCountsAdd(t *testing.T) {
	c := Counts{Nodes: 3, Leaves: 2, MaxDepth: 7}
	c.Add(Counts{Nodes: 10, Leaves: 4, MaxDepth: 5})
	c.Add(Counts{Nodes: 1, Leaves: 1, MaxDepth: 9})
	if want := (Counts{Nodes: 14, Leaves: 7, MaxDepth: 9}); c != want {
		t.Errorf("got %+v, want %+v", c, want)
	}
}

func TestValidate(t *testing.T) {
	if err := DefaultParams().Validate(); err != nil {
		t.Errorf("defaults: %v", err)
	}
	for _, name := range TreeNames() {
		if err := mustNamed(t, name).Params.Validate(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	nan := 0.0
	nan /= nan
	cases := []struct {
		name string
		mod  func(*Params)
		want string
	}{
		{"type", func(p *Params) { p.Type = 3 }, "unknown tree type -t 3"},
		{"negative type", func(p *Params) { p.Type = -1 }, "unknown tree type"},
		{"shape", func(p *Params) { p.Shape = 4 }, "unknown shape -a 4"},
		{"negative b", func(p *Params) { p.B0 = -1 }, "branching factor -b -1"},
		{"NaN b", func(p *Params) { p.B0 = nan }, "branching factor"},
		{"huge binomial b", func(p *Params) { p.Type = Binomial; p.B0 = 1e12 }, "too large"},
		{"gen_mx 0", func(p *Params) { p.GenMx = 0 }, "gen_mx -d 0"},
		{"hybrid gen_mx", func(p *Params) { p.Type = Hybrid; p.GenMx = -2 }, "gen_mx -d -2"},
		{"q > 1", func(p *Params) { p.Type = Binomial; p.Q = 1.5 }, "probability -q 1.5"},
		{"q < 0", func(p *Params) { p.Type = Hybrid; p.Q = -0.1 }, "probability -q -0.1"},
		{"NaN q", func(p *Params) { p.Type = Binomial; p.Q = nan }, "probability -q"},
		{"m", func(p *Params) { p.M = -1 }, "number of children -m -1"},
		{"shift depth", func(p *Params) { p.Type = Hybrid; p.ShiftDepth = -0.5 }, "shift depth -f -0.5"},
		{"granularity", func(p *Params) { p.Granularity = 0 }, "granularity -g 0"},
	}
	for _, tc := range cases {
		p := DefaultParams()
		tc.mod(&p)
		err := p.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Validate() = %v, want error containing %q", tc.name, err, tc.want)
		}
	}

	// Parameters a tree type ignores are not held against it.
	p := DefaultParams()
	p.Type, p.GenMx = Binomial, 0
	if err := p.Validate(); err != nil {
		t.Errorf("binomial with gen_mx 0: %v", err)
	}
	p = DefaultParams()
	p.Q = 7
	if err := p.Validate(); err != nil {
		t.Errorf("geometric with q 7: %v", err)
	}

	// All problems are reported together.
	p = DefaultParams()
	p.B0, p.Granularity = -1, 0
	err := p.Validate()
	if err == nil || !strings.Contains(err.Error(), "-b") || !strings.Contains(err.Error(), "-g") {
		t.Errorf("two errors: got %v", err)
	}
}

func TestNamed(t *testing.T) {
	names := TreeNames()
	if want := []string{"T1", "T2", "T3", "T4", "T5", "T1L", "T2L", "T3L", "T1XL"}; strings.Join(names, ",") != strings.Join(want, ",") {
		t.Errorf("TreeNames() = %v, want %v", names, want)
	}
	for _, in := range []string{"t1", "T1", "t1xl", "T3l"} {
		tr, err := Named(in)
		if err != nil || !strings.EqualFold(tr.Name, in) || tr.Nodes == 0 {
			t.Errorf("Named(%q) = %+v, %v", in, tr, err)
		}
	}
	_, err := Named("T9")
	if err == nil {
		t.Fatal("Named(T9): no error")
	}
	for _, n := range append(names, `"T9"`) {
		if !strings.Contains(err.Error(), n) {
			t.Errorf("Named(T9) error %q does not mention %s", err, n)
		}
	}
}

func TestStringRoundTrip(t *testing.T) {
	for name, want := range map[string]string{
		"T1": "-t 1 -a 3 -d 10 -b 4 -r 19",
		"T3": "-t 0 -b 2000 -q 0.124875 -m 8 -r 42",
		"T4": "-t 2 -a 0 -d 16 -b 6 -r 1 -q 0.234375 -m 4",
	} {
		if got := mustNamed(t, name).Params.String(); got != want {
			t.Errorf("%s: String() = %q, want %q", name, got, want)
		}
	}
	odd := DefaultParams()
	odd.Type, odd.ShiftDepth, odd.Granularity = Hybrid, 0.25, 4
	all := []Params{odd}
	for _, name := range TreeNames() {
		all = append(all, mustNamed(t, name).Params)
	}
	for _, want := range all {
		got := DefaultParams()
		fs := flag.NewFlagSet("uts", flag.ContinueOnError)
		got.RegisterFlags(fs)
		if err := fs.Parse(strings.Fields(want.String())); err != nil {
			t.Fatalf("parse %q: %v", want, err)
		}
		if got != want {
			t.Errorf("%q parsed back as %+v, want %+v", want, got, want)
		}
	}
	// Out-of-range values are rejected by the flag, not wrapped.
	var p Params
	fs := flag.NewFlagSet("uts", flag.ContinueOnError)
	fs.SetOutput(&bytes.Buffer{})
	p.RegisterFlags(fs)
	if err := fs.Parse([]string{"-r", "4294967296"}); err == nil {
		t.Error("-r 2^32 accepted")
	}
}

// Params and Node travel between machines as task arguments.
func TestFixedSize(t *testing.T) {
	if n := binary.Size(Params{}); n <= 0 {
		t.Errorf("binary.Size(Params{}) = %d", n)
	}
	if n := binary.Size(Node{}); n != 24 {
		t.Errorf("binary.Size(Node{}) = %d, want 24", n)
	}
	want := mustNamed(t, "T4").Params
	node := want.Root()
	var buf bytes.Buffer
	if err := binary.Write(&buf, binary.LittleEndian, want); err != nil {
		t.Fatal(err)
	}
	if err := binary.Write(&buf, binary.LittleEndian, node); err != nil {
		t.Fatal(err)
	}
	var got Params
	var gotNode Node
	if err := binary.Read(&buf, binary.LittleEndian, &got); err != nil {
		t.Fatal(err)
	}
	if err := binary.Read(&buf, binary.LittleEndian, &gotNode); err != nil {
		t.Fatal(err)
	}
	if got != want || gotNode != node {
		t.Errorf("round trip: %+v %+v, want %+v %+v", got, gotNode, want, node)
	}
}

// TestWorkOnTheWire: a lent Work carries its Params by value and comes back
// equal; a wrong length or parameters that the command line would refuse
// are an error, not a task.
func TestWorkOnTheWire(t *testing.T) {
	tr := mustNamed(t, "T3")
	w := RootWork(tr.Params)
	w.Kids, w.Lo, w.Hi = 9, 2, 7
	b, err := w.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var back Work
	if err := back.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	if back.P == w.P || *back.P != *w.P || back.Node != w.Node || back.Lo != 2 || back.Hi != 7 || back.Kids != 9 {
		t.Fatalf("round trip: %+v, want %+v with its own copy of the Params", back, w)
	}
	if err := back.UnmarshalBinary(b[:len(b)-1]); err == nil {
		t.Error("a truncated Work decoded")
	}
	bad := tr.Params
	bad.Type = 7
	b, err = (&Work{P: &bad, Node: w.Node}).MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if err := back.UnmarshalBinary(b); err == nil || !strings.Contains(err.Error(), "uts work") {
		t.Errorf("a Work with tree type 7 decoded: %v", err)
	}
}
