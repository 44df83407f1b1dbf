package monitor

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tsys-go/tsys/internal/cluster"
)

// TestStreamEndpoint: /api/stream asks the nodes for the window and
// resolution given (10s at 10ms without), answers with their snapshots
// and streams, and refuses a parameter it cannot use, saying what it
// wants.
func TestStreamEndpoint(t *testing.T) {
	s, err := Start(Config{Addr: "127.0.0.1:0"}, &fakeNode{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	base := "http://" + s.Addr() + "/api/stream"
	for query, want := range map[string][2]time.Duration{
		"":                   {10 * time.Second, 10 * time.Millisecond},
		"?window=3s&res=1ms": {3 * time.Second, time.Millisecond},
	} {
		resp, err := http.Get(base + query)
		if err != nil {
			t.Fatal(err)
		}
		var snaps []cluster.Snapshot
		err = json.NewDecoder(resp.Body).Decode(&snaps)
		resp.Body.Close()
		if err != nil || resp.StatusCode != 200 || len(snaps) != 1 || snaps[0].Stream == nil {
			t.Fatalf("%s: %d %v %+v", query, resp.StatusCode, err, snaps)
		}
		st := snaps[0].Stream
		if st.Window != int64(want[0]) || st.Res != int64(want[1]) || len(st.Rects) != 1 || st.Rects[0].Name != "fib" || st.Rects[0].Frames != 3 {
			t.Errorf("%s: stream %+v, want window %v at %v and its rectangle", query, st, want[0], want[1])
		}
	}
	for _, query := range []string{"?window=forever", "?window=2h", "?res=1ns", "?window=1s&res=2s"} {
		resp, err := http.Get(base + query)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "want a duration from") {
			t.Errorf("%s: %d %q, want 400 saying what it wants", query, resp.StatusCode, body)
		}
	}
}
