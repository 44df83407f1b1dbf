package tsys

import (
	"encoding"
	"reflect"
)

// referenceIn says where in typ a reference sits ("[]int", "field Data,
// map[string]int"), or returns "" if typ is a plain value, one that a
// copy copies whole (see Register). A type that marshals itself
// (encoding.BinaryMarshaler and BinaryUnmarshaler, as time.Time does) is
// a value whatever it holds: its author chose what a copy carries, and the
// codec uses that. A recursive type holds a pointer on the way round, so
// the walk ends.
func referenceIn(typ reflect.Type) string {
	field, ref := findReference(typ, "")
	switch {
	case ref == nil:
		return ""
	case field == "":
		return ref.String()
	}
	return "field " + field + ", " + ref.String()
}

// findReference returns the first reference type inside typ and the
// dotted path of fields that leads to it from prefix.
func findReference(typ reflect.Type, prefix string) (string, reflect.Type) {
	if marshalsItself(typ) {
		return "", nil
	}
	switch typ.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Chan, reflect.Func,
		reflect.Interface, reflect.UnsafePointer:
		return prefix, typ
	case reflect.Array:
		if typ.Len() > 0 {
			return findReference(typ.Elem(), prefix)
		}
	case reflect.Struct:
		for i := range typ.NumField() {
			f := typ.Field(i)
			path := f.Name
			if prefix != "" {
				path = prefix + "." + f.Name
			}
			if p, ref := findReference(f.Type, path); ref != nil {
				return p, ref
			}
		}
	}
	return "", nil
}

var (
	binaryMarshaler   = reflect.TypeFor[encoding.BinaryMarshaler]()
	binaryUnmarshaler = reflect.TypeFor[encoding.BinaryUnmarshaler]()
)

// marshalsItself reports whether values of typ encode and decode
// themselves.
func marshalsItself(typ reflect.Type) bool {
	ptr := reflect.PointerTo(typ)
	return (typ.Implements(binaryMarshaler) || ptr.Implements(binaryMarshaler)) && ptr.Implements(binaryUnmarshaler)
}
