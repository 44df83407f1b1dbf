package uts

import "testing"

// BenchmarkSerialT1 measures the T_S baseline; nodes/s is the number to
// compare with parallel versions and with the reference UTS.
func BenchmarkSerialT1(b *testing.B) {
	tr, err := Named("T1")
	if err != nil {
		b.Fatal(err)
	}
	var nodes int64
	b.ReportAllocs()
	for b.Loop() {
		c := Serial(tr.Params)
		if c.Nodes != tr.Nodes {
			b.Fatalf("got %d nodes, want %d", c.Nodes, tr.Nodes)
		}
		nodes += c.Nodes
	}
	b.ReportMetric(float64(nodes)/b.Elapsed().Seconds(), "nodes/s")
}

// BenchmarkChild isolates the per-node hash, the dominant cost.
func BenchmarkChild(b *testing.B) {
	p := DefaultParams()
	n := p.Root()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		n = p.Child(&n, i&3)
	}
}

// BenchmarkNumChildren is the per-node shape cost a task version pays
// through the exported API (cyclic T2: pow and sin, served from the table).
func BenchmarkNumChildren(b *testing.B) {
	p := mustNamed(b, "T2").Params
	n := p.Root()
	kids := make([]Node, 64)
	for i := range kids {
		kids[i] = p.Child(&n, i)
		kids[i].Height = int32(i % 80)
	}
	sum := 0
	for i := 0; b.Loop(); i++ {
		sum += p.NumChildren(&kids[i&63])
	}
	_ = sum
}
