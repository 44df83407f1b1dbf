package apps

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"image"

	"github.com/tsys-go/tsys/apps/ep"
	"github.com/tsys-go/tsys/apps/fib"
	"github.com/tsys-go/tsys/apps/nqueens"
	"github.com/tsys-go/tsys/apps/rt"
	"github.com/tsys-go/tsys/apps/uts"
	"github.com/tsys-go/tsys/cli"
	"github.com/tsys-go/tsys/internal/loopsplit"
	"github.com/tsys-go/tsys/tsys"
)

func init() {
	register(cli.Program{Name: "fib", Summary: "Fibonacci numbers by naive recursion (-n N)", Options: func() cli.Options { return new(fibOptions) }})
	register(cli.Program{Name: "nqueens", Summary: "count all n-queens solutions (-n N)", Options: func() cli.Options { return new(nqueensOptions) }})
	// UTS keeps 8 ready tasks before it inlines: on T3's thin binomial
	// chains a thief then finds work at once, where with 2 it mostly finds
	// an empty deque, and T1 is no worse (BenchmarkInlineK; bench/README.md,
	// "Choosing K").
	register(cli.Program{Name: "uts", Summary: "Unbalanced Tree Search (--tree T1..T5, T1L, T2L, T3L, T1XL or -t -a -d -b -r -q -m -f -g)", Options: func() cli.Options { return new(utsOptions) }, InlineK: 8})
	// EP's and RT's leaves are what tsys advise tunes: batches of pairs,
	// pixels of a tile; from one batch or a few tiles of a row up to a
	// split too coarse to spread over many nodes.
	register(cli.Program{Name: "ep", Summary: "NAS Parallel Benchmarks EP kernel (--class S|W|A|B|C)", Options: func() cli.Options { return new(epOptions) },
		Grain: &cli.Grain{Flag: "leaf", Values: []string{"1", "2", "4", "8", "16", "32", "64"}}})
	register(cli.Program{Name: "rt", Summary: "ray tracer (--scene balls|tetra|grid -w W -h H -o FILE.png)", Options: func() cli.Options { return new(rtOptions) },
		Grain: &cli.Grain{Flag: "leaf", Values: []string{"256", "1024", "4096", "16384", "65536"}}})
}

// run is the shared Job.Run of every app: the root task on the runtime,
// then the app's own conversion of the root's value.
func run[A, R any](ctx context.Context, r *tsys.Runtime, t *tsys.Task[A, R], arg A, conv func(R) cli.Result) (cli.Result, tsys.Stats, error) {
	v, st, err := tsys.Run(ctx, r, t, arg)
	if err != nil {
		return cli.Result{}, st, err
	}
	return conv(v), st, nil
}

// ---- fib

type fibJob struct{ n int }

type fibOptions struct{ n int }

func (o *fibOptions) Flags(fs *flag.FlagSet) { fs.IntVar(&o.n, "n", 35, "compute fib(N)") }

func (o *fibOptions) Job() (cli.Job, error) {
	if err := fib.Validate(o.n); err != nil {
		return nil, err
	}
	return fibJob{n: o.n}, nil
}

func fibResult(v int64) cli.Result { return cli.Result{Value: v, Text: fmt.Sprintf("fib = %d", v)} }

func (j fibJob) Params() map[string]any { return map[string]any{"n": j.n} }
func (j fibJob) Run(ctx context.Context, r *tsys.Runtime) (cli.Result, tsys.Stats, error) {
	return run(ctx, r, fib.Task, j.n, fibResult)
}
func (j fibJob) Serial() (cli.Result, error) { return fibResult(fib.Serial(j.n)), nil }
func (j fibJob) Verify(r cli.Result) (bool, error) {
	if want := fib.Exact(j.n); r.Value != want {
		return true, fmt.Errorf("fib(%d) = %v, want %d", j.n, r.Value, want)
	}
	return true, nil
}

// ---- nqueens

type nqueensJob struct{ n int }

type nqueensOptions struct{ n int }

func (o *nqueensOptions) Flags(fs *flag.FlagSet) { fs.IntVar(&o.n, "n", 12, "board size N") }

func (o *nqueensOptions) Job() (cli.Job, error) {
	if err := nqueens.Validate(o.n); err != nil {
		return nil, err
	}
	return nqueensJob{n: o.n}, nil
}

func nqueensResult(v int64) cli.Result {
	return cli.Result{Value: v, Text: fmt.Sprintf("solutions = %d", v)}
}

func (j nqueensJob) Params() map[string]any { return map[string]any{"n": j.n} }
func (j nqueensJob) Run(ctx context.Context, r *tsys.Runtime) (cli.Result, tsys.Stats, error) {
	return run(ctx, r, nqueens.Task, nqueens.Start(j.n), nqueensResult)
}
func (j nqueensJob) Serial() (cli.Result, error) {
	return nqueensResult(nqueens.Serial(nqueens.Start(j.n))), nil
}
func (j nqueensJob) Verify(r cli.Result) (bool, error) {
	if want := nqueens.Known[j.n]; r.Value != want {
		return true, fmt.Errorf("nqueens(%d) = %v, want %d (OEIS A000170)", j.n, r.Value, want)
	}
	return true, nil
}

// ---- uts

type utsJob struct {
	tree   string // "" for a custom tree
	p      uts.Params
	known  *uts.Tree
	verify bool
}

type utsOptions struct {
	p      uts.Params
	tree   string
	verify bool
}

func (o *utsOptions) Flags(fs *flag.FlagSet) {
	o.p = uts.DefaultParams()
	o.p.RegisterFlags(fs)
	fs.StringVar(&o.tree, "tree", "", "a named sample tree: T1..T5, T1L, T2L, T3L, T1XL (overrides -t -a -d -b -r -q -m -f)")
	fs.BoolVar(&o.verify, "verify", true, "for a custom tree, check the counts against the serial search (not timed)")
}

func (o *utsOptions) Job() (cli.Job, error) {
	j := utsJob{p: o.p, verify: o.verify}
	if o.tree != "" {
		t, err := uts.Named(o.tree)
		if err != nil {
			return nil, err
		}
		j.tree, j.p, j.known = t.Name, t.Params, &t
	}
	if err := j.p.Validate(); err != nil {
		return nil, err
	}
	return j, nil
}

func utsResult(c uts.Counts) cli.Result {
	return cli.Result{
		Value: map[string]any{"nodes": c.Nodes, "leaves": c.Leaves, "max_depth": c.MaxDepth},
		Text:  fmt.Sprintf("nodes = %d, leaves = %d, max depth = %d", c.Nodes, c.Leaves, c.MaxDepth),
	}
}

func (j utsJob) Params() map[string]any {
	m := map[string]any{"params": j.p.String()}
	if j.tree != "" {
		m["tree"] = j.tree
	}
	return m
}
func (j utsJob) Run(ctx context.Context, r *tsys.Runtime) (cli.Result, tsys.Stats, error) {
	return run(ctx, r, uts.Task, uts.RootWork(j.p), utsResult)
}
func (j utsJob) Serial() (cli.Result, error) { return utsResult(uts.Serial(j.p)), nil }
func (j utsJob) Verify(r cli.Result) (bool, error) {
	var want uts.Counts
	switch {
	case j.known != nil && j.known.Leaves > 0:
		want = uts.Counts{Nodes: j.known.Nodes, Leaves: j.known.Leaves, MaxDepth: j.known.MaxDepth}
	case j.verify:
		want = uts.Serial(j.p)
	default:
		return false, nil
	}
	if got := utsResult(want); fmt.Sprint(got.Value) != fmt.Sprint(r.Value) {
		return true, fmt.Errorf("uts %s: got %s, want %s", j.p, r.Text, got.Text)
	}
	return true, nil
}

// ---- ep

type epJob struct {
	class ep.Class
	leaf  int
}

type epOptions struct {
	class string
	leaf  int
}

func (o *epOptions) Flags(fs *flag.FlagSet) {
	fs.StringVar(&o.class, "class", "S", "problem class: S, W, A, B or C")
	fs.IntVar(&o.leaf, "leaf", 1, "batches of 2^16 pairs per leaf task")
}

func (o *epOptions) Job() (cli.Job, error) {
	c, err := ep.ParseClass(o.class)
	if err != nil {
		return nil, err
	}
	if o.leaf < 1 {
		return nil, fmt.Errorf("ep: --leaf %d: want at least 1 batch per leaf", o.leaf)
	}
	return epJob{class: c, leaf: o.leaf}, nil
}

func epResult(r ep.Result) cli.Result {
	return cli.Result{
		Value: map[string]any{"sx": r.Sx, "sy": r.Sy, "q": r.Q, "gc": r.Count()},
		Text:  fmt.Sprintf("sx = %.15e, sy = %.15e, gc = %d", r.Sx, r.Sy, r.Count()),
	}
}

func (j epJob) Params() map[string]any { return map[string]any{"class": j.class.Name, "leaf": j.leaf} }
func (j epJob) Run(ctx context.Context, r *tsys.Runtime) (cli.Result, tsys.Stats, error) {
	return run(ctx, r, ep.Task, j.class.Whole(j.leaf), func(v ep.Result) cli.Result {
		res := epResult(v)
		res.Value.(map[string]any)["raw"] = v
		return res
	})
}
func (j epJob) Serial() (cli.Result, error) {
	v := ep.Serial(j.class)
	res := epResult(v)
	res.Value.(map[string]any)["raw"] = v
	return res, nil
}
func (j epJob) Verify(r cli.Result) (bool, error) {
	m := r.Value.(map[string]any)
	raw := m["raw"].(ep.Result)
	delete(m, "raw")
	return true, j.class.Verify(raw)
}

// ---- rt

type rtJob struct {
	job    rt.Job
	scene  string
	leaf   int
	flat   bool
	split  string // how --flat's loop cuts pieces off: halving or factoring
	out    string
	verify bool
}

type rtOptions struct {
	scene                       string
	w, h, level, samples, depth int
	leaf                        int
	flat                        bool
	split                       string // how --flat's loop cuts pieces off: halving or factoring
	out                         string
	verify                      bool
}

func (o *rtOptions) Flags(fs *flag.FlagSet) {
	d := rt.DefaultJob()
	fs.StringVar(&o.scene, "scene", "balls", "scene: balls, tetra or grid")
	fs.IntVar(&o.w, "w", int(d.Width), "image width in pixels")
	fs.IntVar(&o.h, "h", int(d.Height), "image height in pixels")
	fs.IntVar(&o.level, "level", -1, "scene size level (balls: sphereflake depth; default per scene)")
	fs.IntVar(&o.samples, "samples", int(d.Samples), "supersampling: S x S rays per pixel")
	fs.IntVar(&o.depth, "depth", int(d.MaxDepth), "reflection depth limit")
	fs.IntVar(&o.leaf, "leaf", 1024, "largest area in pixels that a leaf task renders")
	fs.BoolVar(&o.flat, "flat", false, "render row by row as a flat parallel loop (uneven iterations) instead of a tree of tiles")
	fs.StringVar(&o.split, "split", "halving", "with --flat, how the row loop cuts a piece off for a thief: halving or factoring")
	fs.StringVar(&o.out, "o", "", "write the image to this PNG file")
	fs.BoolVar(&o.verify, "verify", true, "compare the image with the serial render (not timed)")
}

func (o *rtOptions) Job() (cli.Job, error) {
	id, err := rt.SceneID(o.scene)
	if err != nil {
		return nil, err
	}
	j, err := o.rtJob(id)
	if err != nil {
		return nil, err
	}
	if err := j.Validate(); err != nil {
		return nil, err
	}
	if o.leaf < 1 {
		return nil, fmt.Errorf("rt: --leaf %d: want at least 1 pixel", o.leaf)
	}
	switch o.split {
	case "halving":
	case "factoring":
		if !o.flat {
			return nil, errors.New("rt: --split factoring splits the rows of --flat; the tile tree (without --flat) is split by --leaf: add --flat")
		}
	default:
		return nil, fmt.Errorf("rt: --split %q: want halving or factoring", o.split)
	}
	if o.out != "" {
		if err := rt.CheckWritable(o.out); err != nil {
			return nil, err
		}
	}
	return rtJob{job: j, scene: o.scene, leaf: o.leaf, flat: o.flat, split: o.split, out: o.out, verify: o.verify}, nil
}

// rtJob range-checks the integer flags while they are still ints: rt.Job
// holds int32s, and a value converted first would wrap (-w 4294967396
// rendered 100 pixels wide) before rt.Job.Validate could see it.
func (o *rtOptions) rtJob(id int32) (rt.Job, error) {
	minL, maxL, def, _ := rt.LevelRange(id)
	level := int(def)
	if o.level >= 0 {
		level = o.level
	}
	j := rt.Job{Scene: id}
	for _, f := range []struct {
		flag   string
		v, lo  int
		hi     int
		what   string
		target *int32
	}{
		{"-w", o.w, 1, rt.MaxSize, "pixels of width", &j.Width},
		{"-h", o.h, 1, rt.MaxSize, "pixels of height", &j.Height},
		{"--samples", o.samples, 1, rt.MaxSamples, "rays per pixel per axis (supersampling)", &j.Samples},
		{"--depth", o.depth, 0, rt.MaxMaxDepth, "reflections (depth limit)", &j.MaxDepth},
		{"--level", level, int(minL), int(maxL), "(the level range of scene " + o.scene + ")", &j.Level},
	} {
		if f.v < f.lo || f.v > f.hi {
			return rt.Job{}, fmt.Errorf("rt: %s %d: want %d to %d %s", f.flag, f.v, f.lo, f.hi, f.what)
		}
		*f.target = int32(f.v)
	}
	return j, nil
}

func (j rtJob) image(pix []byte) (*image.NRGBA, error) {
	img := rt.NewImage(j.job)
	rt.Assemble(j.job, rt.Rect{X1: j.job.Width, Y1: j.job.Height}, pix, img)
	if j.out != "" {
		if err := rt.WritePNG(j.out, img); err != nil {
			return nil, err
		}
	}
	return img, nil
}

func (j rtJob) result(img *image.NRGBA) cli.Result {
	v := map[string]any{"width": j.job.Width, "height": j.job.Height, "scene": j.scene, "level": j.job.Level}
	if j.out != "" {
		v["file"] = j.out
	}
	v["pix"] = img.Pix
	text := fmt.Sprintf("%s %dx%d rendered", j.scene, j.job.Width, j.job.Height)
	if j.out != "" {
		text += " to " + j.out
	}
	return cli.Result{Value: v, Text: text}
}

func (j rtJob) Params() map[string]any {
	return map[string]any{"scene": j.scene, "level": j.job.Level, "w": j.job.Width, "h": j.job.Height,
		"samples": j.job.Samples, "depth": j.job.MaxDepth, "leaf": j.leaf, "flat": j.flat, "split": j.split}
}
func (j rtJob) Run(ctx context.Context, r *tsys.Runtime) (cli.Result, tsys.Stats, error) {
	var pix []byte
	var st tsys.Stats
	var err error
	if j.flat {
		if j.split == "factoring" {
			ctx = loopsplit.WithFactoring(ctx)
		}
		pix, st, err = tsys.Run(ctx, r, rt.Flat, j.job)
	} else {
		pix, st, err = tsys.Run(ctx, r, rt.Task, rt.WholeTile(j.job, j.leaf))
	}
	if err != nil {
		return cli.Result{}, st, err
	}
	img, err := j.image(pix)
	if err != nil {
		return cli.Result{}, st, err
	}
	return j.result(img), st, nil
}
func (j rtJob) Serial() (cli.Result, error) {
	img := rt.Serial(j.job)
	if j.out != "" {
		if err := rt.WritePNG(j.out, img); err != nil {
			return cli.Result{}, err
		}
	}
	return j.result(img), nil
}
func (j rtJob) Verify(r cli.Result) (bool, error) {
	m := r.Value.(map[string]any)
	pix := m["pix"].([]byte)
	delete(m, "pix")
	if !j.verify {
		return false, nil
	}
	if !bytes.Equal(pix, rt.Serial(j.job).Pix) {
		return true, errors.New("rt: the image differs from the serial render")
	}
	return true, nil
}
