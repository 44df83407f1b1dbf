package typedesc

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

type node struct {
	L, R *node
	V    int64
}

type even struct{ Next *odd }
type odd struct{ Next *even }

type pair[T any] struct{ A, B T }

type span struct{ Lo, Hi int64 }

type spanRenamed struct{ Lo, Hi int64 }

type spanWider struct {
	Lo, Hi int64
	Step   int64
}

type tagged struct {
	Lo int64 `json:"lo"`
}

type untagged struct {
	Lo int64
}

// TestOf: recursive and mutually recursive types end; each named type's
// structure is written once; what the codec sees differ, differs.
func TestOf(t *testing.T) {
	for _, c := range []struct {
		t    reflect.Type
		want string
	}{
		{reflect.TypeFor[int64](), "int64"},
		{reflect.TypeFor[[]byte](), "[]uint8"},
		{reflect.TypeFor[*[4]int](), "*[4]int"},
		{reflect.TypeFor[map[string][]float64](), "map[string][]float64"},
		{reflect.TypeFor[struct{}](), "struct{}"},
		{reflect.TypeFor[*node](), "*github.com/tsys-go/tsys/internal/typedesc.node=struct{L *github.com/tsys-go/tsys/internal/typedesc.node; R *github.com/tsys-go/tsys/internal/typedesc.node; V int64}"},
		{reflect.TypeFor[time.Time](), "time.Time(marshals itself)"},
		{reflect.TypeFor[chan<- int](), "chan<- int"},
		{reflect.TypeFor[error](), "error"},
	} {
		if got := Of(c.t); got != c.want {
			t.Errorf("%v: %q, want %q", c.t, got, c.want)
		}
	}
	if d := Of(reflect.TypeFor[even]()); strings.Count(d, "=") != 2 {
		t.Errorf("mutually recursive types: %q", d)
	}
	if d := Of(reflect.TypeFor[pair[span]]()); !strings.Contains(d, "pair[") || !strings.Contains(d, "A ") {
		t.Errorf("a generic type: %q", d)
	}
	differ := [][2]reflect.Type{
		{reflect.TypeFor[span](), reflect.TypeFor[spanRenamed]()},
		{reflect.TypeFor[span](), reflect.TypeFor[spanWider]()},
		{reflect.TypeFor[[3]int](), reflect.TypeFor[[4]int]()},
		{reflect.TypeFor[int32](), reflect.TypeFor[int64]()},
		{reflect.TypeFor[func(int) int](), reflect.TypeFor[func(...int) int]()},
	}
	for _, p := range differ {
		if Of(p[0]) == Of(p[1]) || Hash(Of(p[0])) == Hash(Of(p[1])) {
			t.Errorf("%v and %v are described alike: %q", p[0], p[1], Of(p[0]))
		}
	}
	// Tags are not what crosses; the field names and types are.
	a, b := Of(reflect.TypeFor[tagged]()), Of(reflect.TypeFor[untagged]())
	if strings.TrimPrefix(a, "github.com/tsys-go/tsys/internal/typedesc.tagged") != strings.TrimPrefix(b, "github.com/tsys-go/tsys/internal/typedesc.untagged") {
		t.Errorf("a tag changed the structure: %q, %q", a, b)
	}
}

// TestOfMadeTypes: types built with reflect, nested deep, are described
// the same each time and never the same as their element's.
func TestOfMadeTypes(t *testing.T) {
	typ := reflect.TypeFor[*node]()
	prev := Of(typ)
	for i := range 50 {
		switch i % 7 {
		case 4:
			typ = reflect.PointerTo(typ)
		case 5:
			typ = reflect.ChanOf(reflect.BothDir, typ)
		case 6:
			typ = reflect.FuncOf([]reflect.Type{typ, reflect.TypeFor[error]()}, []reflect.Type{typ}, false)
		case 0:
			typ = reflect.SliceOf(typ)
		case 1:
			typ = reflect.MapOf(reflect.TypeFor[string](), typ)
		case 2:
			typ = reflect.StructOf([]reflect.StructField{{Name: "F", Type: typ}, {Name: "G", Type: reflect.TypeFor[int]()}})
		case 3:
			typ = reflect.ArrayOf(2, typ)
		}
		d := Of(typ)
		if d != Of(typ) || d == prev {
			t.Fatalf("level %d: %q", i, d)
		}
		prev = d
	}
}
