package tsys

import (
	"fmt"
	"reflect"
)

// Which types the codec carries across nodes, decided from the type alone,
// before any value is encoded: a codec that fails, or panics, on the first
// value lent would fail a job on a cluster that passed every test on one
// node, and encoding/gob silently drops what it cannot carry (unexported
// fields, channels and functions inside a struct). So the rule is stated
// here, once, and Register keeps a task whose types break it on its node,
// saying where and what to do (WhyLocal).
//
// Carried: booleans, numbers (complex too), strings, and arrays, slices,
// maps, pointers and structs of carried types; and any type that marshals
// itself (encoding.BinaryMarshaler and BinaryUnmarshaler), whatever it
// holds, since its author chose what a copy carries. Not carried:
// channels, functions, unsafe.Pointer, interfaces, unexported struct
// fields (blank _ fields carry nothing and are allowed), and recursive
// types, a type that holds itself through a pointer, slice or map: the
// codec copies values as trees, and a value of such a type may share a
// node or hold a cycle, which a copy would duplicate or never finish.

// carryError says why the codec cannot carry a task's type: the path of
// the field at fault, what is wrong with it and what to do.
type carryError struct {
	root   reflect.Type // the task's argument or result type
	path   string       // from the root's name: "Node.L", "Job.Items[i]"
	at     reflect.Type // the type declared at path
	reason string
	remedy string
}

func (e *carryError) Error() string {
	return fmt.Sprintf("values of type %v cannot cross nodes: %s (%v) %s; %s, or keep the task on its node (it still runs, on this node's workers)",
		e.root, e.path, e.at, e.reason, e.remedy)
}

// whyNotCarried returns a *carryError if the codec cannot carry values of
// typ (the rule at the top of this file), nil if it can.
func whyNotCarried(typ reflect.Type) error {
	w := carryWalk{root: typ, onPath: map[reflect.Type]bool{}}
	if err := w.walk(typ, rootName(typ), typ); err != nil {
		return err
	}
	return nil
}

// rootName names the task's type at the start of a path: its bare name
// ("Node") when it has one.
func rootName(typ reflect.Type) string {
	if typ.Kind() == reflect.Pointer && typ.Name() == "" {
		return rootName(typ.Elem())
	}
	if typ.Name() != "" {
		return typ.Name()
	}
	return typ.String()
}

// carryWalk is one walk over a type; onPath holds the composite types
// being walked, so that meeting one again is recursion.
type carryWalk struct {
	root   reflect.Type
	onPath map[reflect.Type]bool
}

// walk checks t, met at path, where the field or element is declared as
// declared (t itself, or a pointer to it).
func (w *carryWalk) walk(t reflect.Type, path string, declared reflect.Type) *carryError {
	if marshalsItself(t) {
		return nil
	}
	fail := func(reason, remedy string) *carryError {
		return &carryError{root: w.root, path: path, at: declared, reason: reason, remedy: remedy}
	}
	if w.onPath[t] {
		for t.Kind() == reflect.Pointer {
			t = t.Elem() // the type to marshal is the pointee
		}
		return fail("makes the type recursive: a value of it may share a node or hold a cycle, which a copy cannot keep",
			"pass a value that is not recursive (a node's own numbers, or a slice of nodes linked by index), or implement encoding.BinaryMarshaler and BinaryUnmarshaler on "+t.String())
	}
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128, reflect.String:
		return nil
	case reflect.Chan:
		return fail("is a channel, which connects goroutines of one process", "pass the values it would carry instead")
	case reflect.Func:
		return fail("is a function, and code cannot be sent (a task crosses as its registered name)", "pass data that says what to do, or register the function as a task")
	case reflect.UnsafePointer:
		return fail("is an address, which means nothing in another process", "pass the value it points to")
	case reflect.Interface:
		return fail("is an interface, and the codec cannot know which concrete type to make on the other node", "use a concrete type")
	}
	w.onPath[t] = true
	defer delete(w.onPath, t)
	switch t.Kind() {
	case reflect.Pointer:
		return w.walk(t.Elem(), path, declared)
	case reflect.Array, reflect.Slice:
		return w.walk(t.Elem(), path+"[i]", t.Elem())
	case reflect.Map:
		if err := w.walk(t.Key(), path+"[key]", t.Key()); err != nil {
			return err
		}
		return w.walk(t.Elem(), path+"[key]", t.Elem())
	case reflect.Struct:
		return w.walkFields(t, path)
	}
	return fail("is of a kind the codec does not know", "use a concrete data type")
}

// walkFields checks a struct's fields. Blank fields are padding: nothing
// to carry. An unexported field would be dropped by encoding/gob without
// a word, so it is refused, embedded or not.
func (w *carryWalk) walkFields(t reflect.Type, path string) *carryError {
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Name == "_" {
			continue
		}
		at := path + "." + f.Name
		if !f.IsExported() {
			return &carryError{root: w.root, path: at, at: f.Type,
				reason: "is an unexported field, which the codec would drop",
				remedy: "export it, or implement encoding.BinaryMarshaler and BinaryUnmarshaler on " + t.String()}
		}
		if err := w.walk(f.Type, at, f.Type); err != nil {
			return err
		}
	}
	return nil
}
