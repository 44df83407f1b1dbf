package clonegen

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// formsPkg is the package the closure forms' cases are written in: sum is
// cloned, since Run calls sumClone; leaf is a plain function.
const formsPkg = `package p

import "github.com/tsys-go/tsys/tsys"

func Run(c *tsys.Ctx, n int) int { return sumClone(c, n) }

func leaf(n int) int { return n }

var sink any

`

// formsCase writes a package whose function sum has body and returns its
// directory and the line of the statement marked // here.
func formsCase(t *testing.T, body string) (string, int) {
	t.Helper()
	src := formsPkg + "func sum(c *tsys.Ctx, n int) int {\n" + body + "\n}\n"
	line := 0
	for i, l := range strings.Split(src, "\n") {
		if strings.Contains(l, "// here") {
			line = i + 1
		}
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "p.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, line
}

// noteAt returns the note on the form at line.
func noteAt(t *testing.T, notes []Note, line int) Note {
	t.Helper()
	for _, n := range notes {
		if strings.HasSuffix(n.Pos, fmt.Sprintf("p.go:%d", line)) && n.Form != "" {
			return n
		}
	}
	t.Fatalf("no note on line %d: %v", line, notes)
	return Note{}
}

// TestFormsLeftAsWritten: a form the generator cannot prove safe to run as
// plain code is left as written, and its note names its line and says
// why, and what to do where there is something to do.
func TestFormsLeftAsWritten(t *testing.T) {
	for _, tc := range []struct{ name, body, want string }{
		{"a closure that is a variable", `	var a, b int
	f := func(c *tsys.Ctx) { a = sum(c, n-1) }
	tsys.Both(c, f, func(c *tsys.Ctx) { b = sum(c, n-2) }) // here
	return a + b`, "f is not a func literal, so the generator cannot see what it runs: write the closure in the call"},
		{"the Ctx around it captured", `	var a, b int
	tsys.Both(c, func(_ *tsys.Ctx) { a = sum(c, n-1) }, func(c *tsys.Ctx) { b = sum(c, n-2) }) // here
	return a + b`, "a closure uses c, the Ctx of the code around the form, which panics inside a closure body: use the closure's own parameter"},
		{"the Ctx of another function", `	var a, b int
	run := func() {
		tsys.Both(c, func(c *tsys.Ctx) { a = sum(c, n-1) }, func(c *tsys.Ctx) { b = sum(c, n-2) }) // here
	}
	run()
	return a + b`, "its Ctx, c, is not the *tsys.Ctx parameter of the function or closure it is in"},
		{"deferred", `	var a, b int
	defer tsys.Both(c, func(c *tsys.Ctx) { a = sum(c, n-1) }, func(c *tsys.Ctx) { b = sum(c, n-2) }) // here
	return a + b`, "it is in a go or defer statement"},
		{"in a goroutine's closure", `	done := make(chan int)
	go func(c *tsys.Ctx) {
		a, b := tsys.Pair(c, func(c *tsys.Ctx) int { return sum(c, n-1) }, func(c *tsys.Ctx) int { return sum(c, n-2) }) // here
		done <- a + b
	}(c)
	return <-done`, "it is in a go or defer statement, or in a closure one runs"},
		{"results into elements", `	s := make([]int, 2)
	s[0], s[1] = tsys.Pair(c, func(c *tsys.Ctx) int { return sum(c, n-1) }, func(c *tsys.Ctx) int { return sum(c, n-2) }) // here
	return s[0] + s[1]`, "it is not the whole right side of an assignment to names, a var or a return: the rewrite would change when the statement's other parts run; assign its results to names first"},
		{"a result in an expression", `	return 1 + tsys.Fold(c, 0, n, func() int { return 0 }, func(c *tsys.Ctx, lo, hi, acc int) int { // here
		return acc + sum(c, hi-lo)
	}, func(a, b int) int { return a + b })`, "it is not the whole right side of an assignment to names"},
		{"in an if's header", `	if a, b := tsys.Pair(c, func(c *tsys.Ctx) int { return sum(c, n-1) }, func(c *tsys.Ctx) int { return sum(c, n-2) }); a > b { // here
		return a
	}
	return 0`, "it is not a statement of its own in a block"},
		{"a leaf loop", `	xs := make([]int, n)
	tsys.For(c, 0, n, func(_ *tsys.Ctx, lo, hi int) { // here
		for i := lo; i < hi; i++ {
			xs[i] = leaf(i)
		}
	})
	return xs[0]`, "its body asks no question of its own (it calls no clone, forks no task and runs no closure form)"},
		{"a loop option", `	tsys.For(c, 0, n, func(c *tsys.Ctx, lo, hi int) { sink = sum(c, hi-lo-1) }, tsys.Grain(8)) // here
	return 0`, "a loop option (Grain, Factoring) fixes how its range is cut"},
		{"an identity that is called", `	return tsys.Fold(c, 0, n, zero(), func(c *tsys.Ctx, lo, hi, acc int) int { // here
		return acc + sum(c, hi-lo-1)
	}, func(a, b int) int { return a + b })
}

func zero() func() int { return func() int { return 0 }`, "its identity is neither a func literal nor a name"},
		{"a combine that is called", `	return tsys.Fold(c, 0, n, func() int { return 0 }, func(c *tsys.Ctx, lo, hi, acc int) int { // here
		return acc + sum(c, hi-lo-1)
	}, adder())
}

func adder() func(a, b int) int { return func(a, b int) int { return a + b }`, "its combine is neither a func literal nor a name"},
		{"a cutoff written by hand", `	if c.AllowCCall() {
		return sum(c, n-1) + sum(c, n-2)
	} else {
		a, b := tsys.Pair(c, func(c *tsys.Ctx) int { return sum(c, n-1) }, func(c *tsys.Ctx) int { return sum(c, n-2) }) // here
		return a + b
	}`, "it is already in the else of an if c.AllowCCall() {"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, line := formsCase(t, tc.body)
			src, notes, err := Generate(dir)
			if err != nil {
				t.Fatal(err)
			}
			n := noteAt(t, notes, line)
			if n.Done || !strings.Contains(n.Why, tc.want) {
				t.Errorf("note %q; want it left as written: %q", n, tc.want)
			}
			if !strings.Contains(n.String(), fmt.Sprintf("p.go:%d: sum: tsys.", line)) || !strings.Contains(n.String(), "left as written: ") {
				t.Errorf("note %q does not name its line, function and form", n)
			}
			if strings.Count(string(src), "AllowCCall()") > strings.Count(tc.body, "AllowCCall()") {
				t.Errorf("the clone asks a question the function does not:\n%s", src)
			}
		})
	}
}

// TestFormsRewritten: the shapes the rewrite handles, as the clone reads.
func TestFormsRewritten(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		want       []string // in the clone, in order
		note       string
	}{
		{"Join, Both's old name, writing captured variables", `	var a, b int
	tsys.Join(c, func(c *tsys.Ctx) { a = sum(c, n-1) }, func(c *tsys.Ctx) { b = sum(c, n-2) }) // here
	return a + b`, []string{"if c.AllowCCall() {\n\t\ta = sumClone(c, n-1)\n\t\tb = sumClone(c, n-2)\n\t} else {\n\t\ta1 := a\n\t\tb1 := b\n\t\ttsys.Join(c, func(c *tsys.Ctx) { a1 = sumClone(c, n-1) }, func(c *tsys.Ctx) { b1 = sumClone(c, n-2) })\n\t\ta = a1\n\t\tb = b1\n\t}"}, "their bodies run here as plain code"},
		{"a variable whose address is taken stays captured", `	var a, b int
	sink = &b
	tsys.Both(c, func(c *tsys.Ctx) { a = sum(c, n-1) }, func(c *tsys.Ctx) { b = sum(c, n-2) }) // here
	return a + b`, []string{"a1 := a\n", "tsys.Both(c, func(c *tsys.Ctx) { a1 = sumClone(c, n-1) }, func(c *tsys.Ctx) { b = sumClone(c, n-2) })"}, "b stays captured on the no path, and so on the heap"},
		{"a variable another closure reads stays captured", `	var a, b int
	get := func() int { return a }
	tsys.Both(c, func(c *tsys.Ctx) { a = sum(c, n-1); b = get() }, func(c *tsys.Ctx) {}) // here
	return a + b`, []string{"b1 := b\n", "tsys.Both(c, func(c *tsys.Ctx) { a = sumClone(c, n-1); b1 = get() }, func(c *tsys.Ctx) {})", "b = b1\n"}, "a stays captured on the no path, and so on the heap"},
		{"a variable a goroutine of the form writes stays captured", `	var a, b int
	done := make(chan bool)
	tsys.Both(c, func(c *tsys.Ctx) { go func() { a = n; done <- true }() }, func(c *tsys.Ctx) { b = sum(c, n-1) }) // here
	<-done
	return a + b`, []string{"b1 := b\n", "tsys.Both(c, func(c *tsys.Ctx) { go func() { a = n; done <- true }() }, func(c *tsys.Ctx) { b1 = sumClone(c, n-1) })", "b = b1\n"}, "a stays captured on the no path"},
		{"a variable another form's closure writes is copied", `	var a, b int
	tsys.Both(c, func(c *tsys.Ctx) { a = sum(c, n-1) }, func(c *tsys.Ctx) { b = sum(c, n-2) })
	tsys.Both(c, func(c *tsys.Ctx) { a += sum(c, n-1) }, func(c *tsys.Ctx) { b += sum(c, n-2) }) // here
	return a + b`, []string{"a2 := a\n", "a2 = sumClone(c, n-1)", "a = a2\n", "a1 := a\n", "a1 += sumClone(c, n-1)", "a = a1\n"}, "their bodies run here as plain code"},
		{"a Ctx named otherwise, and a name both closures declare", `	a, b := tsys.Pair(c, func(cc *tsys.Ctx) int { // here
		v := sum(cc, n-1)
		return v
	}, func(c *tsys.Ctx) int {
		v := sum(c, n-2)
		return v
	})
	return a + b`, []string{"var a, b int\n", "{\n\t\t\tcc := c\n", "v := sumClone(cc, n-1)\n\t\t\ta = v\n\t\t}", "{\n\t\t\tv := sumClone(c, n-2)\n\t\t\tb = v\n\t\t}"}, "plain code"},
		{"a closure with a defer, called as it is", `	var a, b int
	tsys.Both(c, func(c *tsys.Ctx) { // here
		defer func() { sink = a }()
		a = sum(c, n-1)
	}, func(c *tsys.Ctx) { b = sum(c, n-2) })
	return a + b`, []string{"if c.AllowCCall() {\n\t\tfunc(c *tsys.Ctx) {", "defer func() { sink = a }()", "}(c)\n\t\tb = sumClone(c, n-2)\n\t} else {"}, "plain code"},
		{"a loop that asks again, bounds that are calls", `	return tsys.Fold(c, leaf(0), n, func() int { return 0 }, func(c *tsys.Ctx, lo, hi, acc int) int { // here
		return acc + sum(c, hi-lo-1)
	}, func(a, b int) int { return a + b })`, []string{"lo1 := leaf(0)\n", "var r1 int\n", "if c.AllowCCall() {\n\t\tr1 = 0\n\t\tif lo1 < n {\n\t\t\tr1 = func(c *tsys.Ctx, lo, hi, acc int) int {", "}(c, lo1, n, r1)", "r1 = tsys.Fold(c, lo1, n, func() int { return 0 }", "return r1"}, "its body is called once, here, over the whole range"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, line := formsCase(t, "\tif n < 2 {\n\t\treturn n\n\t}\n"+tc.body)
			src, notes, err := Generate(dir)
			if err != nil {
				t.Fatal(err)
			}
			if n := noteAt(t, notes, line); !n.Done || !strings.Contains(n.Why, tc.note) {
				t.Errorf("note %q; want it rewritten: %q", n, tc.note)
			}
			rest := string(src)
			for _, w := range tc.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("the clone lacks %q (or has it out of order):\n%s", w, src)
				}
				rest = rest[i+len(w):]
			}
		})
	}
}

// TestFunctionsWithoutClones: a function that runs closure forms but whose
// clone nothing calls gets none, and a note that says how to ask.
func TestFunctionsWithoutClones(t *testing.T) {
	dir, _ := formsCase(t, "\treturn n\n}\n\nfunc other(c *tsys.Ctx, n int) int {\n\ta, b := tsys.Pair(c, func(c *tsys.Ctx) int { return n }, func(c *tsys.Ctx) int { return n }) // here\n\treturn a + b")
	src, notes, err := Generate(dir)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(src), "otherClone") {
		t.Errorf("other is cloned:\n%s", src)
	}
	var found bool
	for _, n := range notes {
		found = found || n.Func == "other" && strings.Contains(n.String(), "runs closure forms but has no clone: call otherClone where it is called")
	}
	if !found {
		t.Errorf("notes %v; want one saying to call otherClone", notes)
	}
}
