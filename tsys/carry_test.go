package tsys_test

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/tsys-go/tsys/tsys"
)

// Types a user's task may take, of every shape the codec rule (carry.go)
// talks about.
type (
	treeNode struct {
		L, R *treeNode
		V    int64
	}
	mutualA struct {
		Next *mutualB
		N    int
	}
	mutualB                   struct{ Back *mutualA }
	kids                      struct{ Kids []kids }
	selfMap                   map[string]selfMap
	pair[K comparable, V any] struct {
		Key K
		Val V
	}
	job struct {
		ID   int
		done chan int
	}
	inner     struct{ A, B int }
	withEmbed struct {
		inner
		X int
	}
	Inner        struct{ A, B int }
	withExported struct {
		Inner
		X int
	}
	halfHidden struct{ a, B int32 }
	withFunc   struct {
		N int
		F func() int
	}
	withErr   struct{ E error }
	withBlank struct {
		X int32
		_ int32
		Y int32
	}
	// sealed hides its fields but marshals itself: a value.
	sealed struct{ a, b int }
)

func (s sealed) MarshalBinary() ([]byte, error) { return []byte{byte(s.a), byte(s.b)}, nil }
func (s *sealed) UnmarshalBinary(b []byte) error {
	if len(b) != 2 {
		return fmt.Errorf("sealed: want 2 bytes, got %d", len(b))
	}
	s.a, s.b = int(b[0]), int(b[1])
	return nil
}

// carryCase is one type: whether its task may cross nodes as registered
// (with ByValue when byValue), the words WhyLocal must hold otherwise, and
// a value that is not zero to send through the copy check (nil: none).
type carryCase struct {
	name     string
	register func(byValue bool) (lendable bool, why error, roundTrip func(t *testing.T))
	byValue  bool
	lendable bool
	why      []string
}

var carryRegistered atomic.Int64

// carries registers an identity task on A under a fresh name (tests may
// run more than once in a process) and, if sample is given, returns a
// check that a run under CheckCopies gives back an equal value.
func carries[A any](sample *A) func(byValue bool) (bool, error, func(t *testing.T)) {
	return func(byValue bool) (bool, error, func(t *testing.T)) {
		var opts []tsys.TaskOption
		if byValue {
			opts = append(opts, tsys.ByValue())
		}
		name := fmt.Sprintf("test.carry.%d", carryRegistered.Add(1))
		task := tsys.Register(name, func(_ *tsys.Ctx, a A) A { return a }, opts...)
		return task.WhyLocal() == nil, task.WhyLocal(), func(t *testing.T) {
			if sample == nil || task.WhyLocal() != nil {
				return
			}
			rt := tsys.New(tsys.Workers(1), tsys.CheckCopies())
			got, _, err := tsys.Run(context.Background(), rt, task, *sample)
			if err != nil || !reflect.DeepEqual(got, *sample) {
				t.Errorf("a copy of %+v came back as %+v, %v", *sample, got, err)
			}
		}
	}
}

func ptr[T any](v T) *T { return &v }

var carryCases = []carryCase{
	{name: "int", register: carries(ptr(42)), lendable: true},
	{name: "bool", register: carries(ptr(true)), lendable: true},
	{name: "string", register: carries(ptr("héllo")), lendable: true},
	{name: "uintptr", register: carries(ptr(uintptr(7))), lendable: true},
	{name: "complex128", register: carries(ptr(complex(1.5, -2))), lendable: true},
	{name: "[3]int", register: carries(&[3]int{1, 2, 3}), lendable: true},
	{name: "[0]int", register: carries(&[0]int{}), lendable: true},
	{name: "struct{}", register: carries(&struct{}{}), lendable: true},
	{name: "generic struct", register: carries(&pair[string, float64]{"pi", 3.14}), lendable: true},
	{name: "blank fields", register: carries(&withBlank{X: 1, Y: 2}), lendable: true},
	{name: "embedded exported struct", register: carries(&withExported{Inner{1, 2}, 3}), lendable: true},
	{name: "marshals itself, hidden fields", register: carries(&sealed{3, 4}), lendable: true},
	{name: "time.Time", register: carries[time.Time](nil), lendable: true},
	{name: "*int, declared ByValue", register: carries(ptr(ptr(5))), byValue: true, lendable: true},
	{name: "nil *int, declared ByValue", register: carries(ptr((*int)(nil))), byValue: true, lendable: true},
	{name: "**int, declared ByValue", register: carries(ptr(ptr(ptr(6)))), byValue: true, lendable: true},
	{name: "pointer to array, declared ByValue", register: carries(ptr(&[4]int{1, 2, 3, 4})), byValue: true, lendable: true},
	{name: "nested slices, declared ByValue", register: carries(&[][]int{{1}, {2, 3}}), byValue: true, lendable: true},
	{name: "map of structs, declared ByValue", register: carries(&map[string]Inner{"a": {1, 2}}), byValue: true, lendable: true},
	{name: "generic struct of a slice, declared ByValue", register: carries(&pair[int, []string]{1, []string{"x"}}), byValue: true, lendable: true},
	{name: "*int", register: carries[*int](nil), why: []string{"holds a reference", "tsys.ByValue()"}},
	{name: "[]int", register: carries[[]int](nil), why: []string{"holds a reference"}},
	{name: "recursive pointer", register: carries[treeNode](nil), byValue: true,
		why: []string{"treeNode.L", "*tsys_test.treeNode", "recursive", "BinaryMarshaler"}},
	{name: "pointer to a recursive type", register: carries[*treeNode](nil), byValue: true,
		why: []string{"treeNode.L", "recursive"}},
	{name: "mutually recursive", register: carries[mutualA](nil), byValue: true,
		why: []string{"mutualA.Next.Back", "*tsys_test.mutualA", "recursive"}},
	{name: "recursive through a slice", register: carries[kids](nil), byValue: true,
		why: []string{"kids.Kids[i]", "recursive"}},
	{name: "recursive map", register: carries[selfMap](nil), byValue: true, why: []string{"selfMap[key]", "recursive"}},
	{name: "map to a recursive type", register: carries[map[string]*treeNode](nil), byValue: true,
		why: []string{"[key].L", "treeNode", "recursive"}},
	{name: "generic struct of a recursive type", register: carries[pair[int, *treeNode]](nil), byValue: true,
		why: []string{".Val.L", "recursive"}},
	{name: "unexported field", register: carries[job](nil), byValue: true,
		why: []string{"job.done", "unexported field", "export it"}},
	{name: "fixed-size, one field unexported", register: carries[halfHidden](nil),
		why: []string{"halfHidden.a", "unexported"}},
	{name: "embedded unexported struct", register: carries[withEmbed](nil), why: []string{"withEmbed.inner", "unexported"}},
	{name: "chan int", register: carries[chan int](nil), byValue: true, why: []string{"chan int", "channel"}},
	{name: "func", register: carries[func(int) int](nil), byValue: true, why: []string{"func(int) int", "function"}},
	{name: "func field", register: carries[withFunc](nil), byValue: true, why: []string{"withFunc.F", "function"}},
	{name: "interface", register: carries[any](nil), byValue: true, why: []string{"interface", "concrete type"}},
	{name: "error field", register: carries[withErr](nil), byValue: true, why: []string{"withErr.E", "interface"}},
	{name: "slice of interfaces", register: carries[[]any](nil), byValue: true, why: []string{"[i]", "interface"}},
	{name: "unsafe.Pointer", register: carries[unsafe.Pointer](nil), byValue: true, why: []string{"address"}},
	{name: "map of chans", register: carries[map[int]chan int](nil), byValue: true, why: []string{"[key]", "channel"}},
}

// TestRegisterAnyType: Register takes any type without panicking; a type
// the codec cannot carry keeps its task on its node, and WhyLocal names
// the field at fault and the remedy, never a codec's bare "EOF"; a type it
// carries comes back equal from a copy of a value that is not zero.
func TestRegisterAnyType(t *testing.T) {
	if len(carryCases) < 30 {
		t.Fatalf("%d cases; the table must cover at least 30 types", len(carryCases))
	}
	for _, c := range carryCases {
		t.Run(c.name, func(t *testing.T) {
			var (
				lendable  bool
				why       error
				roundTrip func(*testing.T)
			)
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Fatalf("Register panicked: %v", r)
					}
				}()
				lendable, why, roundTrip = c.register(c.byValue)
			}()
			if lendable != c.lendable || (why == nil) != lendable {
				t.Fatalf("lendable %v (why %v), want %v", lendable, why, c.lendable)
			}
			if why != nil {
				for _, w := range c.why {
					if !strings.Contains(why.Error(), w) {
						t.Errorf("WhyLocal %q does not say %q", why, w)
					}
				}
				if strings.Contains(why.Error(), "EOF") {
					t.Errorf("WhyLocal %q", why)
				}
			}
			roundTrip(t)
		})
	}
}
