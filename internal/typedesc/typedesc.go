// Package typedesc describes a Go type's full structure as text: two
// builds of a program agree on a task's types exactly when they describe
// them alike, which is how a node tells that another build's task would
// not decode its arguments (package cluster compares the descriptions'
// hashes at a job's start).
package typedesc

import (
	"encoding"
	"encoding/gob"
	"hash/fnv"
	"reflect"
	"strconv"
	"strings"
)

// Of describes t: its name where it has one (package path and name),
// then, the first time a named type appears, its structure: every
// field's name and type, recursively, elements, keys and lengths. A
// named type met again inside itself is its name alone, so recursive
// types end. Struct tags are left out: the codec ignores them.
func Of(t reflect.Type) string {
	var d describer
	d.seen = map[reflect.Type]bool{}
	d.write(t)
	return d.b.String()
}

// Hash is a 64-bit FNV-1a hash of s, short enough to send per task with
// every job's start.
func Hash(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

type describer struct {
	b    strings.Builder
	seen map[reflect.Type]bool
}

func (d *describer) write(t reflect.Type) {
	if t == nil {
		d.b.WriteString("nil")
		return
	}
	if t.Name() != "" {
		if t.PkgPath() != "" {
			d.b.WriteString(t.PkgPath() + ".")
		}
		d.b.WriteString(t.Name())
		if t.PkgPath() == "" || d.seen[t] {
			return // predeclared (int, error), or described already
		}
		d.seen[t] = true
		if marshalsItself(t) {
			// Its author chose its bytes; its fields, which may differ
			// between Go versions (time.Time's), are not what crosses.
			d.b.WriteString("(marshals itself)")
			return
		}
		d.b.WriteString("=")
	}
	d.structure(t)
}

// structure writes t's underlying type.
func (d *describer) structure(t reflect.Type) {
	switch t.Kind() {
	case reflect.Pointer:
		d.b.WriteString("*")
		d.write(t.Elem())
	case reflect.Slice:
		d.b.WriteString("[]")
		d.write(t.Elem())
	case reflect.Array:
		d.b.WriteString("[" + strconv.Itoa(t.Len()) + "]")
		d.write(t.Elem())
	case reflect.Map:
		d.b.WriteString("map[")
		d.write(t.Key())
		d.b.WriteString("]")
		d.write(t.Elem())
	case reflect.Chan:
		d.b.WriteString(t.ChanDir().String() + " ")
		d.write(t.Elem())
	case reflect.Struct:
		d.fields(t)
	case reflect.Func:
		d.signature(t)
	case reflect.Interface:
		d.methods(t)
	default:
		d.b.WriteString(t.Kind().String())
	}
}

func (d *describer) fields(t reflect.Type) {
	d.b.WriteString("struct{")
	for i := range t.NumField() {
		if i > 0 {
			d.b.WriteString("; ")
		}
		f := t.Field(i)
		if f.Anonymous {
			d.b.WriteString("embedded ")
		}
		d.b.WriteString(f.Name + " ")
		d.write(f.Type)
	}
	d.b.WriteString("}")
}

func (d *describer) signature(t reflect.Type) {
	d.b.WriteString("func(")
	for i := range t.NumIn() {
		if i > 0 {
			d.b.WriteString(", ")
		}
		d.write(t.In(i))
	}
	if t.IsVariadic() {
		d.b.WriteString("...")
	}
	d.b.WriteString(")(")
	for i := range t.NumOut() {
		if i > 0 {
			d.b.WriteString(", ")
		}
		d.write(t.Out(i))
	}
	d.b.WriteString(")")
}

// methods describes an interface type by its name and Go's spelling of
// it, not method by method: reflect.Type.Method, called with an index the
// linker cannot see, keeps every exported method of every type in the
// binary (megabytes in every program that imports tsys), and a task whose
// type holds an interface never crosses nodes anyway (tsys's carry rule).
func (d *describer) methods(t reflect.Type) {
	d.b.WriteString(t.String())
}

// marshalsItself says whether t (or *t) encodes itself, as the codec's
// BinaryMarshaler and gob's GobEncoder rules use.
func marshalsItself(t reflect.Type) bool {
	for _, typ := range []reflect.Type{t, reflect.PointerTo(t)} {
		if typ.Implements(binaryMarshaler) || typ.Implements(gobEncoder) {
			return true
		}
	}
	return false
}

var (
	binaryMarshaler = reflect.TypeFor[encoding.BinaryMarshaler]()
	gobEncoder      = reflect.TypeFor[gob.GobEncoder]()
)
