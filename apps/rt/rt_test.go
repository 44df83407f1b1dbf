package rt

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// smallJob is a quick job of every scene: tiny images, but all features.
func smallJob(scene int32) Job {
	lo, _, _, _ := LevelRange(scene)
	lvl := map[int32]int32{SceneBalls: 3, SceneTetra: 4, SceneGrid: 2}[scene]
	return Job{Scene: scene, Level: max(lvl, lo), Width: 64, Height: 48, Samples: 2, MaxDepth: 3}
}

func TestJobFixedSize(t *testing.T) {
	if n := binary.Size(Job{}); n != 24 {
		t.Fatalf("binary.Size(Job{}) = %d, want 24", n)
	}
	var buf bytes.Buffer
	j := DefaultJob()
	if err := binary.Write(&buf, binary.LittleEndian, j); err != nil {
		t.Fatal(err)
	}
	var k Job
	if err := binary.Read(&buf, binary.LittleEndian, &k); err != nil || k != j {
		t.Fatalf("round trip: %v, %v", k, err)
	}
}

func TestRectSplit(t *testing.T) {
	for _, r := range []Rect{{0, 0, 640, 480}, {3, 5, 10, 6}, {2, 2, 3, 9}, {0, 0, 7, 7}, {1, 1, 3, 2}} {
		a, b := r.Split()
		if a.Area()+b.Area() != r.Area() || a.Empty() || b.Empty() || !a.In(r) || !b.In(r) {
			t.Errorf("%v splits into %v and %v", r, a, b)
		}
		long := r.Dx() >= r.Dy()
		if long && (a.Dy() != r.Dy() || a.X1 != b.X0) || !long && (a.Dx() != r.Dx() || a.Y1 != b.Y0) {
			t.Errorf("%v not split across its longer side: %v %v", r, a, b)
		}
	}
	a, b := Rect{4, 4, 5, 5}.Split()
	if a != (Rect{4, 4, 5, 5}) || !b.Empty() {
		t.Errorf("1x1 splits into %v, %v", a, b)
	}
	if (Rect{5, 0, 2, 3}).Area() != 0 {
		t.Error("inverted rect has pixels")
	}
}

// renderTree renders r by splitting it down to leaves of at most leaf
// pixels, like the task version, and assembles the leaves into img.
func renderTree(j Job, r Rect, leaf int, img *image.NRGBA) {
	if r.Area() > leaf {
		a, b := r.Split()
		renderTree(j, a, leaf, img)
		renderTree(j, b, leaf, img)
		return
	}
	pix := make([]byte, 3*r.Area())
	SceneFor(j).Render(r, pix)
	Assemble(j, r, pix, img)
}

func TestSplitRenderIdentical(t *testing.T) {
	for id := range int32(len(SceneNames())) {
		j := smallJob(id)
		whole := make([]byte, 3*j.Bounds().Area())
		SceneFor(j).Render(j.Bounds(), whole)

		// Split once, render both halves, compare with the whole.
		a, b := j.Bounds().Split()
		pa, pb := make([]byte, 3*a.Area()), make([]byte, 3*b.Area())
		SceneFor(j).Render(a, pa)
		SceneFor(j).Render(b, pb)
		img := NewImage(j)
		Assemble(j, a, pa, img)
		Assemble(j, b, pb, img)
		one := NewImage(j)
		Assemble(j, j.Bounds(), whole, one)
		if !bytes.Equal(img.Pix, one.Pix) {
			t.Errorf("%v: two halves differ from one render of the whole", j)
		}
		// Deep, uneven split (odd leaf size), and the serial loop.
		deep := NewImage(j)
		renderTree(j, j.Bounds(), 37, deep)
		if !bytes.Equal(deep.Pix, one.Pix) {
			t.Errorf("%v: tree of small rects differs from the whole", j)
		}
		if !bytes.Equal(Serial(j).Pix, one.Pix) {
			t.Errorf("%v: Serial differs from Render of the whole", j)
		}
	}
}

func TestSerialDeterministic(t *testing.T) {
	j := smallJob(SceneBalls)
	a := Serial(j)
	b := Serial(j)
	// A scene built afresh, not from the cache, renders the same.
	fresh := newScene(j, specs[j.Scene].build(j.Level))
	pix := make([]byte, 3*j.Bounds().Area())
	fresh.Render(j.Bounds(), pix)
	c := NewImage(j)
	Assemble(j, j.Bounds(), pix, c)
	if !bytes.Equal(a.Pix, b.Pix) || !bytes.Equal(a.Pix, c.Pix) {
		t.Fatal("Serial is not deterministic")
	}
	for i := 3; i < len(a.Pix); i += 4 {
		if a.Pix[i] != 255 {
			t.Fatal("image not opaque")
		}
	}
}

// Golden checksums: the renderer must give the same bytes on every
// platform (no fused multiply-add, only exact math functions). A change to
// the renderer changes them: update them (go test -run Golden -v prints the
// new values) after checking the images.
var golden = map[string]uint32{
	"balls": 0xf5a7e853,
	"tetra": 0xa6299c96,
	"grid":  0x744e44fb,
}

func TestGolden(t *testing.T) {
	for id, name := range SceneNames() {
		j := smallJob(int32(id))
		j.Width, j.Height = 40, 30
		sum := crc32.ChecksumIEEE(Serial(j).Pix)
		t.Logf("%s: %#08x", name, sum)
		if want, ok := golden[name]; !ok || sum != want {
			t.Errorf("%v: checksum %#08x, want %#08x", j, sum, want)
		}
	}
}

func px(img *image.NRGBA, x, y int) [3]int {
	i := img.PixOffset(x, y)
	return [3]int{int(img.Pix[i]), int(img.Pix[i+1]), int(img.Pix[i+2])}
}

func TestPixelsSanity(t *testing.T) {
	j := Job{Scene: SceneBalls, Level: 2, Width: 80, Height: 60, Samples: 1, MaxDepth: 2}
	img := Serial(j)
	sky := px(img, 2, 1)     // top-left corner: sky
	flake := px(img, 40, 30) // centre: the big sphere
	ground := px(img, 3, 58) // bottom-left: ground
	if !(sky[2] > sky[0] && sky[2] > 150) {
		t.Errorf("sky pixel %v is not blue", sky)
	}
	if flake == sky || ground == sky || flake == ground {
		t.Errorf("sky %v, sphere %v, ground %v should differ", sky, flake, ground)
	}
	if !(ground[0] > ground[2]) {
		t.Errorf("ground pixel %v is not orange", ground)
	}
	// Reflections change the sphere; without them it still differs from sky.
	j0 := j
	j0.MaxDepth = 0
	if p := px(Serial(j0), 40, 30); p == flake || p == sky {
		t.Errorf("sphere pixel without reflection %v, with %v, sky %v", p, flake, sky)
	}
	// Shadows: some ground pixels are much darker than the lit ground.
	dark := 0
	for x := 0; x < 80; x++ {
		if p := px(img, x, 57); p[0] < ground[0]/2 {
			dark++
		}
	}
	if dark == 0 {
		t.Error("no shadow on the ground row in front of the flake")
	}
}

func TestValidate(t *testing.T) {
	for id := range int32(len(SceneNames())) {
		lo, hi, def, ok := LevelRange(id)
		if !ok || lo > def || def > hi {
			t.Errorf("scene %d: levels %d..%d default %d", id, lo, hi, def)
		}
		j := DefaultJob()
		j.Scene, j.Level = id, def
		if err := j.Validate(); err != nil {
			t.Errorf("default level of scene %d: %v", id, err)
		}
		if SceneAbout(id) == "" {
			t.Errorf("scene %d: no description", id)
		}
	}
	if err := DefaultJob().Validate(); err != nil {
		t.Fatalf("DefaultJob: %v", err)
	}
	bad := []struct {
		edit func(*Job)
		want string
	}{
		{func(j *Job) { j.Scene = 7 }, "unknown scene id 7"},
		{func(j *Job) { j.Scene = -1 }, "unknown scene id -1"},
		{func(j *Job) { j.Level = -1 }, "level -1 out of range for scene balls"},
		{func(j *Job) { j.Level = 7 }, "level 7 out of range"},
		{func(j *Job) { j.Width = 0 }, "must be positive"},
		{func(j *Job) { j.Height = -5 }, "must be positive"},
		{func(j *Job) { j.Width = MaxSize + 1 }, "too large"},
		{func(j *Job) { j.Samples = 0 }, "samples 0 out of range"},
		{func(j *Job) { j.Samples = MaxSamples + 1 }, "samples 17 out of range"},
		{func(j *Job) { j.MaxDepth = -1 }, "max depth -1 out of range"},
		{func(j *Job) { j.MaxDepth = MaxMaxDepth + 1 }, "max depth 17 out of range"},
	}
	for _, c := range bad {
		j := DefaultJob()
		c.edit(&j)
		err := j.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want one containing %q", j, err, c.want)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("SceneFor of an invalid job did not panic")
		}
	}()
	SceneFor(Job{})
}

func TestSceneID(t *testing.T) {
	names := SceneNames()
	if len(names) < 2 || names[0] != "balls" || names[1] != "tetra" {
		t.Fatalf("SceneNames() = %v", names)
	}
	for i, n := range names {
		if id, err := SceneID(n); err != nil || id != int32(i) {
			t.Errorf("SceneID(%q) = %d, %v", n, id, err)
		}
	}
	_, err := SceneID("teapot")
	if err == nil || !strings.Contains(err.Error(), `"teapot"`) || !strings.Contains(err.Error(), strings.Join(names, ", ")) {
		t.Errorf("SceneID(teapot) error %v should name it and list %v", err, names)
	}
}

func TestSceneCounts(t *testing.T) {
	for l, want := range []int{1, 10, 91, 820, 7381} {
		j := Job{Scene: SceneBalls, Level: int32(l), Width: 4, Height: 4, Samples: 1}
		if s, _, _ := SceneFor(j).Counts(); s != want {
			t.Errorf("balls level %d: %d spheres, want %d", l, s, want)
		}
	}
	if _, tr, _ := SceneFor(Job{Scene: SceneTetra, Level: 3, Width: 4, Height: 4, Samples: 1}).Counts(); tr != 4*64 {
		t.Errorf("tetra level 3: %d triangles, want 256", tr)
	}
	if s, _, _ := SceneFor(Job{Scene: SceneGrid, Level: 3, Width: 4, Height: 4, Samples: 1}).Counts(); s != 64 {
		t.Errorf("grid level 3: %d spheres, want 64", s)
	}
}

func TestConcurrent(t *testing.T) {
	j := smallJob(SceneGrid)
	want := Serial(j)
	img := NewImage(j)
	var mu sync.Mutex
	var wg sync.WaitGroup
	var tiles []Rect
	for y := int32(0); y < j.Height; y += 16 {
		for x := int32(0); x < j.Width; x += 16 {
			tiles = append(tiles, Rect{x, y, min(x+16, j.Width), min(y+16, j.Height)})
		}
	}
	scenes := make([]*Scene, len(tiles))
	for i, r := range tiles {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := SceneFor(j)
			scenes[i] = s
			pix := make([]byte, 3*r.Area())
			s.Render(r, pix)
			mu.Lock()
			Assemble(j, r, pix, img)
			mu.Unlock()
		}()
	}
	wg.Wait()
	for _, s := range scenes {
		if s != scenes[0] {
			t.Fatal("SceneFor built the scene twice")
		}
	}
	if !bytes.Equal(img.Pix, want.Pix) {
		t.Fatal("concurrent tiles differ from Serial")
	}
}

func TestRenderPanics(t *testing.T) {
	j := smallJob(SceneBalls)
	s := SceneFor(j)
	cases := map[string]func(){
		"short buffer":  func() { s.Render(Rect{0, 0, 4, 4}, make([]byte, 47)) },
		"outside":       func() { s.Render(Rect{60, 0, 65, 1}, make([]byte, 15)) },
		"assemble size": func() { Assemble(j, Rect{0, 0, 2, 2}, make([]byte, 3), NewImage(j)) },
	}
	for name, f := range cases {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}

func TestWritePNG(t *testing.T) {
	j := Job{Scene: SceneTetra, Level: 2, Width: 24, Height: 16, Samples: 1, MaxDepth: 1}
	img := Serial(j)
	dir := t.TempDir()
	path := filepath.Join(dir, "ok.png")
	if err := WritePNG(path, img); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	back, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if back.Bounds() != img.Bounds() {
		t.Fatalf("decoded bounds %v", back.Bounds())
	}
	for y := 0; y < 16; y++ {
		for x := 0; x < 24; x++ {
			r, g, b, _ := back.At(x, y).RGBA()
			if got, want := [3]int{int(r >> 8), int(g >> 8), int(b >> 8)}, px(img, x, y); got != want {
				t.Fatalf("pixel %d,%d: %v, want %v", x, y, got, want)
			}
		}
	}
	bad := filepath.Join(dir, "no-such-dir", "x.png")
	err = WritePNG(bad, img)
	if err == nil || !strings.Contains(err.Error(), bad) {
		t.Errorf("WritePNG(%s) = %v, want an error naming the path", bad, err)
	}
	if err := WritePNG(dir, img); err == nil { // a directory
		t.Error("WritePNG to a directory succeeded")
	}
}

func ExampleSceneID() {
	id, err := SceneID("balls")
	fmt.Println(id, err)
	_, err = SceneID("nope")
	fmt.Println(err)
	// Output:
	// 0 <nil>
	// rt: unknown scene "nope" (valid scenes: balls, tetra, grid)
}
