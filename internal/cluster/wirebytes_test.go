package cluster

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestMessagesBytesStay: each of sampleMessages encodes to the bytes in
// testdata/messages.golden, one line each, in order: how the
// vocabulary is written may change, what nodes of different builds send
// each other may not. A change of these bytes is a change of the
// protocol: it moves transport.ProtocolVersion, and the new line to put
// in the file is in the failure.
func TestMessagesBytesStay(t *testing.T) {
	f, err := os.Open("testdata/messages.golden")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var want []string
	for sc := bufio.NewScanner(f); sc.Scan(); {
		if line := strings.TrimSpace(sc.Text()); line != "" && !strings.HasPrefix(line, "#") {
			want = append(want, line)
		}
	}
	msgs := sampleMessages()
	if len(want) != len(msgs) {
		t.Fatalf("%d golden lines for %d sample messages", len(want), len(msgs))
	}
	for i, m := range msgs {
		tm := encodeMessage(m)
		got := strings.TrimSpace(fmt.Sprintf("%d %s", tm.Type, hex.EncodeToString(tm.Body)))
		if got != want[i] {
			t.Errorf("sample %d (%s) encodes to\n\t%s\nnot\n\t%s", i, messageName(m), got, want[i])
		}
	}
}
