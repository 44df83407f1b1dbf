package advise

// Greedy holds a program's work and span, in seconds: T1, its time on one
// worker, and T∞, its longest chain of dependent work.
type Greedy struct{ Work, Span float64 }

// Upper is T1/P + T∞, the time within which any greedy scheduler finishes
// on p workers (Graham, Brent).
func (g Greedy) Upper(p int) float64 { return g.Work/float64(p) + g.Span }

// Lower is max(T1/P, T∞), the time no scheduler beats on p workers.
func (g Greedy) Lower(p int) float64 { return max(g.Work/float64(p), g.Span) }

// Parallelism is T1/T∞: beyond it, more workers cannot help.
func (g Greedy) Parallelism() float64 { return g.Work / g.Span }
