package cluster

import (
	"errors"
	"testing"
	"time"

	"github.com/tsys-go/tsys/internal/wire"
)

// TestStreamRequestBounds: a request for a stream longer than a node
// keeps, or drawn finer than minStreamRes, is refused as it is decoded,
// saying what is allowed.
func TestStreamRequestBounds(t *testing.T) {
	for _, m := range []*statsRequest{
		{ID: 1, Stream: maxStreamWindow + time.Second, StreamRes: time.Millisecond},
		{ID: 2, Stream: time.Second, StreamRes: minStreamRes - 1},
	} {
		_, err := decodeMessage(encodeMessage(m))
		if !errors.Is(err, wire.ErrMalformed) {
			t.Errorf("window %v at %v decoded: %v", m.Stream, m.StreamRes, err)
		}
	}
	ok := &statsRequest{ID: 3, Stream: maxStreamWindow, StreamRes: minStreamRes}
	if _, err := decodeMessage(encodeMessage(ok)); err != nil {
		t.Errorf("the widest, finest stream allowed is refused: %v", err)
	}
}
