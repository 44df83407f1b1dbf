package rt

import (
	"fmt"
	"math"
	"strings"
	"sync"
)

// Job describes one image: which scene, its size parameter, the image size
// and the quality settings. It holds only fixed-size numeric fields, so
// encoding/binary can size and encode it and it can travel between machines
// inside task arguments. The scene geometry is a pure function of
// (Scene, Level); the pixels are a pure function of the whole Job.
type Job struct {
	Scene         int32 // index into SceneNames()
	Level         int32 // scene size parameter, see SceneNames / levelRange
	Width, Height int32 // image size in pixels
	Samples       int32 // supersampling per axis: Samples*Samples rays per pixel
	MaxDepth      int32 // mirror reflection depth limit: 0 = no reflections
}

// Limits checked by Validate.
const (
	MaxSize     = 16384 // largest Width or Height
	MaxSamples  = 16    // largest Samples
	MaxMaxDepth = 16    // largest MaxDepth
)

// Scene identifiers, the indices of SceneNames.
const (
	SceneBalls int32 = iota // Haines' SPD "balls": the sphereflake
	SceneTetra              // Haines' SPD "tetra": a Sierpinski tetrahedron
	SceneGrid               // a square grid of mirror spheres on a checkered plane
)

type sceneSpec struct {
	name       string
	minL, maxL int32 // valid Level range
	defL       int32 // a reasonable default level
	about      string
	build      func(level int32) *geom
}

var specs = [...]sceneSpec{
	SceneBalls: {"balls", 0, 6, 3,
		"sphereflake: a sphere with 9 spheres of 1/3 radius around it, recursively; level L has sum 9^i (i=0..L) spheres (3: 820, 4: 7381)",
		buildBalls},
	SceneTetra: {"tetra", 0, 8, 5,
		"Sierpinski tetrahedron: level L has 4^L tetrahedra of 4 triangles each (5: 4096 triangles)",
		buildTetra},
	SceneGrid: {"grid", 0, 6, 3,
		"2^L x 2^L coloured mirror spheres on a checkered plane (3: 64 spheres)",
		buildGrid},
}

// SceneNames returns the scene names; a name's index is its Job.Scene value.
func SceneNames() []string {
	names := make([]string, len(specs))
	for i := range specs {
		names[i] = specs[i].name
	}
	return names
}

// SceneAbout returns a one-line description of scene id and its level range,
// or "" for an unknown id.
func SceneAbout(id int32) string {
	if id < 0 || int(id) >= len(specs) {
		return ""
	}
	s := &specs[id]
	return fmt.Sprintf("%s (levels %d-%d, default %d): %s", s.name, s.minL, s.maxL, s.defL, s.about)
}

// SceneID returns the Job.Scene value of the named scene.
func SceneID(name string) (int32, error) {
	for i := range specs {
		if specs[i].name == name {
			return int32(i), nil
		}
	}
	return -1, fmt.Errorf("rt: unknown scene %q (valid scenes: %s)", name, strings.Join(SceneNames(), ", "))
}

// LevelRange returns the valid Level range [min, max] and the default level
// of scene id (ok is false for an unknown id).
func LevelRange(id int32) (lo, hi, def int32, ok bool) {
	if id < 0 || int(id) >= len(specs) {
		return 0, 0, 0, false
	}
	s := &specs[id]
	return s.minL, s.maxL, s.defL, true
}

// DefaultJob is the sphereflake of level 3 (820 spheres), 640x480 pixels,
// 3x3 samples per pixel, reflections up to depth 4: a second or so of
// serial rendering on one core (BenchmarkApps/rtBalls/serial;
// bench/README.md, "Absolute times").
func DefaultJob() Job {
	return Job{Scene: SceneBalls, Level: 3, Width: 640, Height: 480, Samples: 3, MaxDepth: 4}
}

// Validate reports the first problem of j, or nil if j can be rendered.
func (j Job) Validate() error {
	if j.Scene < 0 || int(j.Scene) >= len(specs) {
		return fmt.Errorf("rt: unknown scene id %d (valid: 0-%d = %s)", j.Scene, len(specs)-1, strings.Join(SceneNames(), ", "))
	}
	s := &specs[j.Scene]
	if j.Level < s.minL || j.Level > s.maxL {
		return fmt.Errorf("rt: level %d out of range for scene %s (valid: %d-%d)", j.Level, s.name, s.minL, s.maxL)
	}
	if j.Width <= 0 || j.Height <= 0 {
		return fmt.Errorf("rt: image size %dx%d: width and height must be positive", j.Width, j.Height)
	}
	if j.Width > MaxSize || j.Height > MaxSize {
		return fmt.Errorf("rt: image size %dx%d too large (max %d per side)", j.Width, j.Height, MaxSize)
	}
	if j.Samples < 1 || j.Samples > MaxSamples {
		return fmt.Errorf("rt: samples %d out of range (valid: 1-%d per axis)", j.Samples, MaxSamples)
	}
	if j.MaxDepth < 0 || j.MaxDepth > MaxMaxDepth {
		return fmt.Errorf("rt: max depth %d out of range (valid: 0-%d)", j.MaxDepth, MaxMaxDepth)
	}
	return nil
}

// String describes j in the style of command-line flags.
func (j Job) String() string {
	name := fmt.Sprintf("scene#%d", j.Scene)
	if j.Scene >= 0 && int(j.Scene) < len(specs) {
		name = specs[j.Scene].name
	}
	return fmt.Sprintf("%s level=%d %dx%d samples=%dx%d depth=%d",
		name, j.Level, j.Width, j.Height, j.Samples, j.Samples, j.MaxDepth)
}

// Bounds returns the rectangle of the whole image.
func (j Job) Bounds() Rect { return Rect{0, 0, j.Width, j.Height} }

// ---- geometry ----

type material struct {
	color  vec
	color2 vec     // second colour of a checkered plane
	check  float64 // checker square size on planes; 0 = plain colour
	kd, ks float64 // diffuse and specular (Phong highlight) weights
	shine  int     // Phong exponent
	kr     float64 // mirror reflection weight
}

type sphere struct {
	c        vec
	r2, invR float64
	mat      int32
}

type triangle struct {
	a, e1, e2 vec // vertex a and edges b-a, c-a
	n         vec // unit normal
	mat       int32
}

// plane is the set of points p with (p-o).n == 0; if ext > 0 only the
// square |(p-o).u| <= ext, |(p-o).v| <= ext of it.
type plane struct {
	o, n, u, v vec
	ext        float64
	mat        int32
}

type light struct{ pos, col vec }

// node is a node of the bounding hierarchy: a bounding sphere around its
// own spheres [s0,s1), triangles [t0,t1) and child nodes [k0,k1).
type node struct {
	c                      vec
	r2                     float64
	s0, s1, t0, t1, k0, k1 int32
}

// geom is the scene proper: everything but the image size and quality.
// It is immutable once built and shared by all Scenes with the same
// (Scene, Level).
type geom struct {
	spheres []sphere
	tris    []triangle
	planes  []plane // unbounded, tested for every ray
	nodes   []node  // bounding hierarchy, root at index 0 (if any)
	mats    []material
	lights  []light
	ambient float64
	horizon vec // sky colour at the horizon ...
	zenith  vec // ... and straight up (+z is up in every scene)

	eye, look, up vec     // camera
	tanHalf       float64 // tan(vertical field of view / 2)
	stack         int     // traversal stack size needed
}

func (g *geom) addMat(m material) int32 {
	g.mats = append(g.mats, m)
	return int32(len(g.mats) - 1)
}

func (g *geom) addSphere(c vec, r float64, mat int32) {
	g.spheres = append(g.spheres, sphere{c: c, r2: r * r, invR: 1 / r, mat: mat})
}

func (g *geom) addTri(a, b, c vec, mat int32) {
	e1, e2 := b.sub(a), c.sub(a)
	g.tris = append(g.tris, triangle{a: a, e1: e1, e2: e2, n: e1.cross(e2).norm(), mat: mat})
}

// newNode appends n empty nodes and returns the index of the first.
func (g *geom) newNodes(n int) int32 {
	i := len(g.nodes)
	g.nodes = append(g.nodes, make([]node, n)...)
	return int32(i)
}

// finish computes the traversal stack size: a depth-first traversal that
// pushes all children of a node holds at most sum over the levels of
// (fan-out - 1), plus one.
func (g *geom) finish() *geom {
	var need func(i int32) int
	need = func(i int32) int {
		n := &g.nodes[i]
		best := 0
		for k := n.k0; k < n.k1; k++ {
			best = max(best, need(k))
		}
		return best + int(n.k1-n.k0)
	}
	g.stack = 1
	if len(g.nodes) > 0 {
		g.stack = need(0) + 1
	}
	if g.stack > maxStack {
		panic(fmt.Sprintf("rt: bounding hierarchy needs a stack of %d > %d", g.stack, maxStack))
	}
	return g
}

// sqrt3 and friends are computed with math.Sqrt, which is correctly
// rounded on every platform (unlike Sin, Cos, Tan), so the scenes are
// bit-identical everywhere.
var (
	sqrt2 = math.Sqrt(2)
	sqrt3 = math.Sqrt(3)
)

// buildBalls builds Haines' sphereflake (SPD "balls") with his viewpoint and
// lights: a sphere of radius 0.5 at the origin, 9 spheres of radius 1/3 of
// it touching it (6 around its equator, 3 above), each again with 9
// spheres around it pointing away from its parent, down to level; on a
// plain square ground at z=-0.5 under a blue sky.
func buildBalls(level int32) *geom {
	g := &geom{
		ambient: 0.12,
		horizon: vec{0.55, 0.7, 0.92},
		zenith:  vec{0.078, 0.361, 0.753},
		eye:     vec{2.1, 1.3, 1.7},
		look:    vec{0, 0, 0},
		up:      vec{0, 0, 1},
		tanHalf: sqrt2 - 1, // tan(22.5 degrees): 45 degree field of view
	}
	ground := g.addMat(material{color: vec{1, 0.75, 0.33}, color2: vec{0.85, 0.6, 0.25}, check: 0.5, kd: 0.8})
	flake := g.addMat(material{color: vec{1, 0.9, 0.7}, kd: 0.55, ks: 0.5, shine: 24, kr: 0.4})
	g.planes = append(g.planes, plane{o: vec{0, 0, -0.5}, n: vec{0, 0, 1}, u: vec{1, 0, 0}, v: vec{0, 1, 0}, ext: 4, mat: ground})
	li := 1 / sqrt3 // three lights of intensity 1/sqrt(3), as in SPD
	for _, p := range []vec{{4, 3, 2}, {1, -4, 4}, {-3, 1, 5}} {
		g.lights = append(g.lights, light{pos: p, col: vec{li, li, li}})
	}

	// Child directions in the local frame of a sphere whose z axis points
	// away from its parent: 6 on the equator, 60 degrees apart, and 3
	// above, between them, each 60 degrees from its nearest neighbours.
	h := sqrt3 / 2
	var dirs [9]vec
	eq := [6][2]float64{{1, 0}, {0.5, h}, {-0.5, h}, {-1, 0}, {-0.5, -h}, {0.5, -h}}
	for i, e := range eq {
		dirs[i] = vec{e[0], e[1], 0}
	}
	top := [3][2]float64{{h, 0.5}, {-h, 0.5}, {0, -1}}
	for i, e := range top {
		dirs[6+i] = vec{e[0], e[1], sqrt2}.norm() // elevation acos(1/sqrt 3)
	}
	// bound[l]: radius, in units of the sphere's radius, of a sphere
	// enclosing a flake of l levels: the children's centres lie at 4/3.
	bound := make([]float64, level+1)
	bound[0] = 1
	for l := 1; l <= int(level); l++ {
		bound[l] = 4.0/3 + bound[l-1]/3
	}

	var build func(ni int32, c vec, r float64, bx, by, bz vec, l int32)
	build = func(ni int32, c vec, r float64, bx, by, bz vec, l int32) {
		br := bound[l] * r * (1 + 1e-9)
		s0 := int32(len(g.spheres))
		g.addSphere(c, r, flake)
		g.nodes[ni] = node{c: c, r2: br * br, s0: s0, s1: s0 + 1}
		if l == 0 {
			return
		}
		var cc, cx, cy, cz [9]vec
		for i, d := range dirs {
			w := bx.scale(d.x).addScaled(by, d.y).addScaled(bz, d.z).norm()
			cc[i] = c.addScaled(w, r*4/3)
			// Child frame: z away from this sphere, x this sphere's z made
			// perpendicular (never parallel: no child points along z).
			cz[i] = w
			cx[i] = bz.addScaled(w, -bz.dot(w)).norm()
			cy[i] = cz[i].cross(cx[i])
		}
		if l == 1 { // the 9 leaf spheres live in this node, no child nodes
			for i := range dirs {
				g.addSphere(cc[i], r/3, flake)
			}
			g.nodes[ni].s1 = int32(len(g.spheres))
			return
		}
		k0 := g.newNodes(len(dirs))
		g.nodes[ni].k0, g.nodes[ni].k1 = k0, k0+int32(len(dirs))
		for i := range dirs {
			build(k0+int32(i), cc[i], r/3, cx[i], cy[i], cz[i], l-1)
		}
	}
	g.newNodes(1)
	build(0, vec{0, 0, 0}, 0.5, vec{1, 0, 0}, vec{0, 1, 0}, vec{0, 0, 1}, level)
	return g.finish()
}

// buildTetra builds a Sierpinski tetrahedron in the spirit of Haines' SPD
// "tetra": a regular tetrahedron of edge 2 standing on a checkered floor,
// replaced level times by 4 half-size copies at its corners; the leaves are
// tetrahedra of 4 triangles. Each subdivision is a node of the bounding
// hierarchy with the tetrahedron's circumsphere as bound.
func buildTetra(level int32) *geom {
	g := &geom{
		ambient: 0.1,
		horizon: vec{0.75, 0.8, 0.9},
		zenith:  vec{0.25, 0.35, 0.6},
		eye:     vec{1.9, -2.6, 1.65},
		look:    vec{0, 0, 0.62},
		up:      vec{0, 0, 1},
		tanHalf: sqrt2 - 1,
	}
	floor := g.addMat(material{color: vec{0.8, 0.8, 0.8}, color2: vec{0.25, 0.3, 0.4}, check: 0.5, kd: 0.8, kr: 0.15})
	solid := g.addMat(material{color: vec{0.95, 0.3, 0.25}, kd: 0.75, ks: 0.35, shine: 16, kr: 0.1})
	g.planes = append(g.planes, plane{o: vec{0, 0, 0}, n: vec{0, 0, 1}, u: vec{1, 0, 0}, v: vec{0, 1, 0}, mat: floor})
	g.lights = append(g.lights,
		light{pos: vec{4, -2, 6}, col: vec{0.75, 0.75, 0.7}},
		light{pos: vec{-3, -4, 4}, col: vec{0.3, 0.3, 0.35}})

	const a = 2.0 // edge
	R := a / sqrt3
	v := [4]vec{
		{0, R, 0},
		{-a / 2, -R / 2, 0},
		{a / 2, -R / 2, 0},
		{0, 0, a * sqrt2 / sqrt3},
	}
	var build func(ni int32, v [4]vec, l int32)
	build = func(ni int32, v [4]vec, l int32) {
		c := v[0].add(v[1]).add(v[2]).add(v[3]).scale(0.25)
		r2 := 0.0
		for _, p := range v {
			r2 = max(r2, p.sub(c).dot(p.sub(c)))
		}
		g.nodes[ni] = node{c: c, r2: r2 * (1 + 1e-9)}
		if l == 0 {
			t0 := int32(len(g.tris))
			// Faces opposite each vertex, wound so the normal points out.
			g.addTri(v[0], v[2], v[1], solid)
			g.addTri(v[0], v[1], v[3], solid)
			g.addTri(v[1], v[2], v[3], solid)
			g.addTri(v[2], v[0], v[3], solid)
			g.nodes[ni].t0, g.nodes[ni].t1 = t0, t0+4
			return
		}
		k0 := g.newNodes(4)
		g.nodes[ni].k0, g.nodes[ni].k1 = k0, k0+4
		for i := range 4 {
			var w [4]vec
			for j := range 4 {
				w[j] = v[i].add(v[j]).scale(0.5)
			}
			build(k0+int32(i), w, l-1)
		}
	}
	g.newNodes(1)
	build(0, v, level)
	return g.finish()
}

// buildGrid builds n x n (n = 2^level) coloured mirror spheres, spread over
// the square [-2,2]^2 on an infinite checkered plane that itself reflects a
// little, seen from low enough to show the sky: reflections of reflections,
// the most expensive pixels are between the spheres. The hierarchy is a
// quadtree of bounding spheres with up to 4 spheres per leaf.
func buildGrid(level int32) *geom {
	g := &geom{
		ambient: 0.1,
		horizon: vec{0.8, 0.85, 0.95},
		zenith:  vec{0.2, 0.3, 0.7},
		eye:     vec{3.1, -4.1, 1.5},
		look:    vec{0, 0, 0},
		up:      vec{0, 0, 1},
		tanHalf: sqrt2 - 1,
	}
	floor := g.addMat(material{color: vec{0.9, 0.9, 0.85}, color2: vec{0.15, 0.15, 0.2}, check: 0.5, kd: 0.75, kr: 0.2})
	tints := []vec{{1, 0.35, 0.3}, {0.35, 0.9, 0.4}, {0.35, 0.5, 1}, {1, 0.85, 0.3}}
	var mats []int32
	for _, t := range tints {
		mats = append(mats, g.addMat(material{color: t, kd: 0.3, ks: 0.6, shine: 48, kr: 0.65}))
	}
	g.planes = append(g.planes, plane{o: vec{0, 0, 0}, n: vec{0, 0, 1}, u: vec{1, 0, 0}, v: vec{0, 1, 0}, mat: floor})
	g.lights = append(g.lights,
		light{pos: vec{5, -3, 7}, col: vec{0.7, 0.7, 0.65}},
		light{pos: vec{-4, -6, 5}, col: vec{0.35, 0.35, 0.4}})

	n := int32(1) << level
	s := 4 / float64(n)
	r := 0.42 * s
	center := func(i, j int32) vec {
		return vec{-2 + float64(s*(float64(i)+0.5)), -2 + float64(s*(float64(j)+0.5)), r}
	}
	var build func(ni, i0, i1, j0, j1 int32)
	build = func(ni, i0, i1, j0, j1 int32) {
		bc := center(i0, j0).add(center(i1-1, j1-1)).scale(0.5)
		br := center(i0, j0).sub(bc).length() + r
		br *= 1 + 1e-9
		g.nodes[ni] = node{c: bc, r2: br * br}
		if (i1-i0)*(j1-j0) <= 4 {
			s0 := int32(len(g.spheres))
			for i := i0; i < i1; i++ {
				for j := j0; j < j1; j++ {
					g.addSphere(center(i, j), r, mats[(i+2*j)%int32(len(mats))])
				}
			}
			g.nodes[ni].s0, g.nodes[ni].s1 = s0, int32(len(g.spheres))
			return
		}
		im, jm := (i0+i1)/2, (j0+j1)/2
		k0 := g.newNodes(4)
		g.nodes[ni].k0, g.nodes[ni].k1 = k0, k0+4
		build(k0, i0, im, j0, jm)
		build(k0+1, im, i1, j0, jm)
		build(k0+2, i0, im, jm, j1)
		build(k0+3, im, i1, jm, j1)
	}
	g.newNodes(1)
	build(0, 0, n, 0, n)
	return g.finish()
}

// ---- scenes: geometry plus camera for one image size ----

// Scene is a built scene ready to render the image of one Job. It is
// immutable and safe for concurrent use by any number of goroutines.
type Scene struct {
	job      Job
	g        *geom
	base     vec     // direction through the top-left image corner
	dx, dy   vec     // change of direction per pixel right and down
	step     float64 // sub-pixel step 1/Samples
	invCount float64 // 1/Samples^2
}

// Job returns the job the scene was built for.
func (s *Scene) Job() Job { return s.job }

// Counts returns the number of spheres, triangles and planes of the scene.
func (s *Scene) Counts() (spheres, triangles, planes int) {
	return len(s.g.spheres), len(s.g.tris), len(s.g.planes)
}

func newScene(j Job, g *geom) *Scene {
	fwd := g.look.sub(g.eye).norm()
	right := fwd.cross(g.up).norm()
	up := right.cross(fwd)
	halfH := g.tanHalf
	halfW := halfH * float64(j.Width) / float64(j.Height)
	return &Scene{
		job:      j,
		g:        g,
		base:     fwd.addScaled(right, -halfW).addScaled(up, halfH),
		dx:       right.scale(2 * halfW / float64(j.Width)),
		dy:       up.scale(-2 * halfH / float64(j.Height)),
		step:     1 / float64(j.Samples),
		invCount: 1 / float64(j.Samples*j.Samples),
	}
}

type geomKey struct{ scene, level int32 }

var cache struct {
	sync.Mutex
	geoms  map[geomKey]*geom
	scenes map[Job]*Scene
}

// SceneFor returns the scene of j, building it on first use. Scenes (and the
// geometry, shared between jobs differing only in image size and quality)
// are cached, so every task of an image calls SceneFor cheaply. Safe for
// concurrent use. It panics if j is invalid: call j.Validate first.
func SceneFor(j Job) *Scene {
	if err := j.Validate(); err != nil {
		panic(err)
	}
	cache.Lock()
	defer cache.Unlock()
	if s := cache.scenes[j]; s != nil {
		return s
	}
	if cache.scenes == nil || len(cache.scenes) >= 64 { // bound the cache
		cache.scenes = make(map[Job]*Scene)
	}
	if cache.geoms == nil || len(cache.geoms) >= 16 {
		cache.geoms = make(map[geomKey]*geom)
	}
	k := geomKey{j.Scene, j.Level}
	g := cache.geoms[k]
	if g == nil {
		g = specs[j.Scene].build(j.Level)
		cache.geoms[k] = g
	}
	s := newScene(j, g)
	cache.scenes[j] = s
	return s
}
