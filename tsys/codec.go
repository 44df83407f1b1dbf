package tsys

import (
	"bytes"
	"encoding"
	"encoding/binary"
	"encoding/gob"
	"errors"
	"fmt"
	"reflect"
)

// codec turns a task's argument or result into bytes and back, for tasks
// that cross nodes. It is chosen once per type, at registration: raw bytes
// for []byte, a varint for int, and for the rest the codec of its
// reflect.Type (valueCodec), which Register's rule (carry.go) has
// accepted first.
type codec[T any] struct {
	enc func(v *T) ([]byte, error)
	dec func(b []byte, v *T) error
}

func newCodec[T any]() codec[T] {
	var zero T
	switch any(zero).(type) {
	case []byte:
		return codec[T]{
			enc: func(v *T) ([]byte, error) { return any(*v).([]byte), nil },
			dec: func(b []byte, v *T) error {
				*v = any(bytes.Clone(b)).(T)
				return nil
			},
		}
	case int:
		return codec[T]{
			enc: func(v *T) ([]byte, error) { return binary.AppendVarint(nil, int64(any(*v).(int))), nil },
			dec: func(b []byte, v *T) error {
				x, n := binary.Varint(b)
				if n <= 0 || n != len(b) {
					return fmt.Errorf("bad int encoding (%d bytes)", len(b))
				}
				*v = any(int(x)).(T)
				return nil
			},
		}
	}
	vc := newValueCodec(reflect.TypeFor[T]())
	return codec[T]{
		enc: func(v *T) ([]byte, error) { return vc.enc(reflect.ValueOf(v).Elem()) },
		dec: func(b []byte, v *T) error { return vc.dec(b, reflect.ValueOf(v).Elem()) },
	}
}

// valueCodec is the codec of one reflect.Type, on values that are
// addressable (enc) and settable (dec): the part of a codec that does not
// need the type at compile time, so that tests may build types with
// reflect and check the codec on them.
type valueCodec struct {
	enc func(v reflect.Value) ([]byte, error)
	dec func(b []byte, v reflect.Value) error
}

// newValueCodec chooses typ's codec: the type's own BinaryMarshaler if it
// has one (its author chose what a copy carries), encoding/binary for
// fixed-size values (the common case: the apps' arguments are small
// structs of numbers), a presence byte and the
// pointee for a pointer (encoding/gob cannot encode a nil pointer at the
// top), and encoding/gob for the rest. Nothing here reads a value.
func newValueCodec(typ reflect.Type) valueCodec {
	switch {
	case marshalsItself(typ):
		return marshalerCodec()
	case binary.Size(reflect.New(typ).Interface()) > 0:
		return fixedCodec(typ)
	case typ.Kind() == reflect.Pointer:
		return pointerCodec(typ)
	}
	return gobCodec()
}

func fixedCodec(typ reflect.Type) valueCodec {
	size := binary.Size(reflect.New(typ).Interface())
	return valueCodec{
		enc: func(v reflect.Value) ([]byte, error) {
			return binary.Append(nil, binary.LittleEndian, v.Addr().Interface())
		},
		dec: func(b []byte, v reflect.Value) error {
			if len(b) != size {
				return fmt.Errorf("want %d bytes, got %d", size, len(b))
			}
			_, err := binary.Decode(b, binary.LittleEndian, v.Addr().Interface())
			return err
		},
	}
}

func marshalerCodec() valueCodec {
	return valueCodec{
		enc: func(v reflect.Value) ([]byte, error) {
			return v.Addr().Interface().(encoding.BinaryMarshaler).MarshalBinary()
		},
		dec: func(b []byte, v reflect.Value) error {
			return v.Addr().Interface().(encoding.BinaryUnmarshaler).UnmarshalBinary(b)
		},
	}
}

// pointerCodec carries a pointer as a byte, 0 for nil and 1 for a
// pointee, followed by the pointee in its own codec; the receiver gets a
// pointer to its own copy.
func pointerCodec(typ reflect.Type) valueCodec {
	elem := newValueCodec(typ.Elem())
	return valueCodec{
		enc: func(v reflect.Value) ([]byte, error) {
			if v.IsNil() {
				return []byte{0}, nil
			}
			b, err := elem.enc(v.Elem())
			return append([]byte{1}, b...), err
		},
		dec: func(b []byte, v reflect.Value) error {
			switch {
			case len(b) == 0:
				return errors.New("an empty encoding of a pointer")
			case b[0] == 0:
				v.SetZero()
				return nil
			}
			p := reflect.New(typ.Elem())
			if err := elem.dec(b[1:], p.Elem()); err != nil {
				return err
			}
			v.Set(p)
			return nil
		},
	}
}

func gobCodec() valueCodec {
	return valueCodec{
		enc: func(v reflect.Value) ([]byte, error) {
			var buf bytes.Buffer
			err := gob.NewEncoder(&buf).EncodeValue(v)
			return buf.Bytes(), err
		},
		dec: func(b []byte, v reflect.Value) error {
			return gob.NewDecoder(bytes.NewReader(b)).DecodeValue(v.Addr())
		},
	}
}

// copy copies *from to *to through the codec, as crossing a node does,
// and returns the size of the encoding.
func (c codec[T]) copy(from, to *T) (int, error) {
	b, err := c.enc(from)
	if err != nil {
		return len(b), err
	}
	return len(b), c.dec(b, to)
}

// check reports whether the codec can carry values of T: Register's rule
// first (carry.go), then a trial of the zero value, whose panic, if
// encoding/gob or a type's own MarshalBinary has one, is an error here
// rather than a program that cannot start.
func (c codec[T]) check() error {
	typ := reflect.TypeFor[T]()
	if err := whyNotCarried(typ); err != nil {
		return err
	}
	return tryCodec(typ, func() error {
		var zero, back T
		_, err := c.copy(&zero, &back)
		return err
	})
}

// tryCodec runs a trial of typ's codec, turning its panic into an error.
func tryCodec(typ reflect.Type, trial func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("values of type %v cannot cross nodes: the codec panicked on one: %v; implement encoding.BinaryMarshaler and BinaryUnmarshaler on it, or keep the task on its node", typ, r)
		}
	}()
	if err := trial(); err != nil {
		return fmt.Errorf("values of type %v cannot cross nodes: %w", typ, err)
	}
	return nil
}
