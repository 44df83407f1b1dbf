package tsys

import (
	"bytes"
	"encoding"
	"encoding/binary"
	"encoding/gob"
	"fmt"
	"reflect"
)

// codec turns a task's argument or result into bytes and back, for tasks
// that cross nodes. It is chosen once per type, at registration: raw bytes
// for []byte, encoding/binary for fixed-size values (the common case: the
// apps' arguments are small structs of numbers), the type's own
// BinaryMarshaler if it has one, and encoding/gob for the rest.
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
	if binary.Size(zero) > 0 {
		return codec[T]{
			enc: func(v *T) ([]byte, error) { return binary.Append(nil, binary.LittleEndian, v) },
			dec: func(b []byte, v *T) error {
				if len(b) != binary.Size(v) {
					return fmt.Errorf("want %d bytes, got %d", binary.Size(v), len(b))
				}
				_, err := binary.Decode(b, binary.LittleEndian, v)
				return err
			},
		}
	}
	if _, ok := any(&zero).(encoding.BinaryMarshaler); ok {
		if _, ok := any(&zero).(encoding.BinaryUnmarshaler); ok {
			return codec[T]{
				enc: func(v *T) ([]byte, error) { return any(v).(encoding.BinaryMarshaler).MarshalBinary() },
				dec: func(b []byte, v *T) error { return any(v).(encoding.BinaryUnmarshaler).UnmarshalBinary(b) },
			}
		}
	}
	return codec[T]{
		enc: func(v *T) ([]byte, error) {
			var buf bytes.Buffer
			err := gob.NewEncoder(&buf).Encode(v)
			return buf.Bytes(), err
		},
		dec: func(b []byte, v *T) error { return gob.NewDecoder(bytes.NewReader(b)).Decode(v) },
	}
}

// copy copies *from to *to through the codec, as crossing a node does.
func (c codec[T]) copy(from, to *T) error {
	b, err := c.enc(from)
	if err != nil {
		return err
	}
	return c.dec(b, to)
}

// check reports whether values of T survive the codec, trying the zero
// value: a type it cannot carry (a Future, a channel, a struct of
// unexported fields) makes its task stay on its node.
func (c codec[T]) check() error {
	var zero, back T
	if err := c.copy(&zero, &back); err != nil {
		return fmt.Errorf("values of type %v cannot cross nodes: %w", reflect.TypeFor[T](), err)
	}
	return nil
}
