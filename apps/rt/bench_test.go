package rt

import "testing"

func benchRender(b *testing.B, j Job) {
	s := SceneFor(j)
	pix := make([]byte, 3*j.Bounds().Area())
	b.ReportAllocs()
	for b.Loop() {
		s.Render(j.Bounds(), pix)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(j.Bounds().Area()), "ns/pixel")
}

// BenchmarkRenderBalls renders a small sphereflake (level 3, 160x120, 2x2
// samples, depth 4).
func BenchmarkRenderBalls(b *testing.B) {
	benchRender(b, Job{Scene: SceneBalls, Level: 3, Width: 160, Height: 120, Samples: 2, MaxDepth: 4})
}

func BenchmarkRenderBallsLevel5(b *testing.B) {
	benchRender(b, Job{Scene: SceneBalls, Level: 5, Width: 160, Height: 120, Samples: 2, MaxDepth: 4})
}

func BenchmarkRenderTetra(b *testing.B) {
	benchRender(b, Job{Scene: SceneTetra, Level: 5, Width: 160, Height: 120, Samples: 2, MaxDepth: 4})
}

func BenchmarkRenderGrid(b *testing.B) {
	benchRender(b, Job{Scene: SceneGrid, Level: 3, Width: 160, Height: 120, Samples: 2, MaxDepth: 4})
}

func BenchmarkBuildBalls4(b *testing.B) {
	for b.Loop() {
		buildBalls(4)
	}
}
