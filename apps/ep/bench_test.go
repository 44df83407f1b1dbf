package ep

import "testing"

// BenchmarkBatch runs one batch (BatchPairs pairs) per iteration, cycling
// through the first batches so the jump-ahead cost is included.
func BenchmarkBatch(b *testing.B) {
	var sink Result
	kk := 0
	for b.Loop() {
		sink.Add(Batches(kk, kk+1))
		kk = (kk + 1) & 255
	}
	b.ReportMetric(float64(b.N)*BatchPairs/b.Elapsed().Seconds(), "pairs/s")
	if sink.Count() == 0 {
		b.Fatal("no pairs accepted")
	}
}

// BenchmarkSerial runs whole small classes serially (the T_S baseline).
func BenchmarkSerial(b *testing.B) {
	for _, name := range []string{"S", "W"} {
		c, _ := ParseClass(name)
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if err := c.Verify(Serial(c)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
