package tsys

import (
	"errors"
	"math/rand/v2"
	"reflect"
	"testing"
	"unsafe"
)

// TestCarryProperty builds random types with reflect and checks that the
// codec rule (carry.go) and the codec agree: a type the rule accepts
// round-trips a random value that is not zero, exactly (up to gob's
// documented identities: nil and empty slices and maps are one, and so are
// a nil pointer and one to a zero value); a type it refuses holds what the
// rule names; and nothing panics, neither the walk nor a trial of the
// codec. Register is generic; this checks its non-generic core.
func TestCarryProperty(t *testing.T) {
	carried := 0
	for seed := range uint64(3000) {
		if checkCarry(t, seed) {
			carried++
		}
	}
	// The generator must exercise both sides of the rule.
	t.Logf("carried %d", carried)
	if carried < 300 || carried > 2700 {
		t.Errorf("%d of 3000 random types carried: the generator is lopsided", carried)
	}
}

// FuzzCarry is TestCarryProperty on the seeds the fuzzer chooses.
func FuzzCarry(f *testing.F) {
	for _, s := range []uint64{0, 1, 42, 1 << 40} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, seed uint64) { checkCarry(t, seed) })
}

// checkCarry checks the type and value made from seed, and reports
// whether the rule accepted the type.
func checkCarry(t *testing.T, seed uint64) (carried bool) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 7))
	typ := randType(r, 3)
	v := reflect.New(typ).Elem()
	fill(r, v, true)
	defer func() {
		if p := recover(); p != nil {
			t.Fatalf("seed %d, type %v: panic %v", seed, typ, p)
		}
	}()
	why := whyNotCarried(typ)
	if why != nil {
		var ce *carryError
		if !errors.As(why, &ce) || !holdsForbidden(typ) {
			t.Fatalf("seed %d: %v refused (%v), but holds nothing the rule forbids", seed, typ, why)
		}
		// A trial of the codec on a refused type must not panic out.
		_ = tryCodec(typ, func() error {
			vc := newValueCodec(typ)
			b, err := vc.enc(v)
			if err != nil {
				return err
			}
			return vc.dec(b, reflect.New(typ).Elem())
		})
		return false
	}
	if holdsForbidden(typ) {
		t.Fatalf("seed %d: %v accepted, but holds what the rule forbids", seed, typ)
	}
	vc := newValueCodec(typ)
	b, err := vc.enc(v)
	if err != nil {
		t.Fatalf("seed %d: %v accepted, but encoding %#v: %v", seed, typ, v, err)
	}
	back := reflect.New(typ).Elem()
	if err := vc.dec(b, back); err != nil {
		t.Fatalf("seed %d: %v accepted, but decoding: %v", seed, typ, err)
	}
	if !sameValue(v, back) {
		t.Fatalf("seed %d: %v: %#v came back as %#v", seed, typ, v.Interface(), back.Interface())
	}
	return true
}

var basicTypes = []reflect.Type{
	reflect.TypeFor[int](), reflect.TypeFor[int8](), reflect.TypeFor[int32](), reflect.TypeFor[uint16](),
	reflect.TypeFor[uint64](), reflect.TypeFor[uintptr](), reflect.TypeFor[float32](), reflect.TypeFor[float64](),
	reflect.TypeFor[complex64](), reflect.TypeFor[bool](), reflect.TypeFor[string](),
}

var keyTypes = []reflect.Type{
	reflect.TypeFor[int](), reflect.TypeFor[string](), reflect.TypeFor[int32](), reflect.TypeFor[[2]int8](),
	reflect.TypeFor[struct{ K int }](),
}

// randType makes a type of at most depth levels of composition, mostly of
// carried parts, now and then one that is not.
func randType(r *rand.Rand, depth int) reflect.Type {
	if depth == 0 {
		return basicTypes[r.IntN(len(basicTypes))]
	}
	switch n := r.IntN(100); {
	case n < 25:
		return basicTypes[r.IntN(len(basicTypes))]
	case n < 37:
		return reflect.SliceOf(randType(r, depth-1))
	case n < 47:
		return reflect.ArrayOf(r.IntN(4), randType(r, depth-1))
	case n < 57:
		return reflect.MapOf(keyTypes[r.IntN(len(keyTypes))], randType(r, depth-1))
	case n < 67:
		return reflect.PointerTo(randType(r, depth-1))
	case n < 90:
		return randStruct(r, depth)
	case n < 93:
		return reflect.ChanOf(reflect.BothDir, randType(r, depth-1))
	case n < 96:
		return reflect.FuncOf([]reflect.Type{randType(r, depth-1)}, nil, false)
	case n < 98:
		return reflect.TypeFor[any]()
	}
	return reflect.TypeFor[unsafe.Pointer]()
}

func randStruct(r *rand.Rand, depth int) reflect.Type {
	fields := make([]reflect.StructField, r.IntN(4))
	for i := range fields {
		name := string(rune('A'+i)) + "f"
		f := reflect.StructField{Name: name, Type: randType(r, depth-1)}
		if r.IntN(12) == 0 {
			f.Name, f.PkgPath = string(rune('a'+i))+"f", "tsys"
		}
		fields[i] = f
	}
	return reflect.StructOf(fields)
}

// holdsForbidden reports whether typ holds, anywhere, a part the rule
// refuses (random types are never recursive and never marshal
// themselves).
func holdsForbidden(typ reflect.Type) bool {
	switch typ.Kind() {
	case reflect.Chan, reflect.Func, reflect.Interface, reflect.UnsafePointer:
		return true
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return holdsForbidden(typ.Elem())
	case reflect.Map:
		return holdsForbidden(typ.Key()) || holdsForbidden(typ.Elem())
	case reflect.Struct:
		for i := range typ.NumField() {
			if f := typ.Field(i); !f.IsExported() || holdsForbidden(f.Type) {
				return true
			}
		}
	}
	return false
}

// fill sets v, which is settable, to a random value: numbers that are not
// zero, pointers that are not nil (gob cannot encode a nil pointer inside
// a slice or map; one at the top may be nil), up to three elements.
func fill(r *rand.Rand, v reflect.Value, top bool) {
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int32, reflect.Int64:
		v.SetInt(int64(r.IntN(100)) - 50)
	case reflect.Uint16, reflect.Uint64, reflect.Uintptr:
		v.SetUint(uint64(r.IntN(1000) + 1))
	case reflect.Float32, reflect.Float64:
		v.SetFloat(r.NormFloat64())
	case reflect.Complex64:
		v.SetComplex(complex(r.NormFloat64(), 1))
	case reflect.Bool:
		v.SetBool(r.IntN(2) == 0)
	case reflect.String:
		v.SetString([]string{"", "a", "héllo", "xyz"}[r.IntN(4)])
	case reflect.Slice:
		n := r.IntN(4)
		v.Set(reflect.MakeSlice(v.Type(), n, n))
		for i := range n {
			fill(r, v.Index(i), false)
		}
	case reflect.Array:
		for i := range v.Len() {
			fill(r, v.Index(i), false)
		}
	case reflect.Map:
		v.Set(reflect.MakeMap(v.Type()))
		for range r.IntN(4) {
			k := reflect.New(v.Type().Key()).Elem()
			e := reflect.New(v.Type().Elem()).Elem()
			fill(r, k, false)
			fill(r, e, false)
			v.SetMapIndex(k, e)
		}
	case reflect.Pointer:
		if top && r.IntN(4) == 0 {
			return
		}
		p := reflect.New(v.Type().Elem())
		fill(r, p.Elem(), false)
		v.Set(p)
	case reflect.Struct:
		for i := range v.NumField() {
			f := v.Field(i)
			if !f.CanSet() { // unexported: set it anyway, as a program's own code would
				f = reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem()
			}
			fill(r, f, false)
		}
	case reflect.Chan:
		v.Set(reflect.MakeChan(v.Type(), 1))
	case reflect.Interface:
		v.Set(reflect.ValueOf(r.IntN(10)))
	}
}

// sameValue compares a value with its copy, with gob's identities: nil
// and empty slices and maps are one, and a nil pointer is a pointer to a
// zero value.
func sameValue(a, b reflect.Value) bool {
	switch a.Kind() {
	case reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			return zeroDeep(a) && zeroDeep(b)
		}
		return sameValue(a.Elem(), b.Elem())
	case reflect.Slice, reflect.Array:
		if a.Len() != b.Len() {
			return false
		}
		for i := range a.Len() {
			if !sameValue(a.Index(i), b.Index(i)) {
				return false
			}
		}
		return true
	case reflect.Map:
		if a.Len() != b.Len() {
			return false
		}
		for it := a.MapRange(); it.Next(); {
			e := b.MapIndex(it.Key())
			if !e.IsValid() || !sameValue(it.Value(), e) {
				return false
			}
		}
		return true
	case reflect.Struct:
		for i := range a.NumField() {
			if !sameValue(a.Field(i), b.Field(i)) {
				return false
			}
		}
		return true
	case reflect.Int, reflect.Int8, reflect.Int32, reflect.Int64:
		return a.Int() == b.Int()
	case reflect.Uint16, reflect.Uint64, reflect.Uintptr:
		return a.Uint() == b.Uint()
	case reflect.Float32, reflect.Float64:
		return a.Float() == b.Float()
	case reflect.Complex64:
		return a.Complex() == b.Complex()
	case reflect.Bool:
		return a.Bool() == b.Bool()
	case reflect.String:
		return a.String() == b.String()
	}
	panic("sameValue: a kind the rule does not carry: " + a.Kind().String())
}

// zeroDeep reports whether v is zero as gob sees it: a pointer to a zero
// value is, and so is an empty slice or map.
func zeroDeep(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Pointer:
		return v.IsNil() || zeroDeep(v.Elem())
	case reflect.Slice, reflect.Map:
		return v.Len() == 0
	case reflect.Array:
		for i := range v.Len() {
			if !zeroDeep(v.Index(i)) {
				return false
			}
		}
		return true
	case reflect.Struct:
		for i := range v.NumField() {
			if !zeroDeep(v.Field(i)) {
				return false
			}
		}
		return true
	}
	return v.IsZero()
}
