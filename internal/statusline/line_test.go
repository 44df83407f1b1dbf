package statusline_test

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/tsys-go/tsys/internal/clitest"
	"github.com/tsys-go/tsys/internal/statusline"
)

// TestIsTerminal: a pseudo-terminal is one; a pipe, a file, /dev/null (a
// character device that is no terminal) and a buffer are not.
func TestIsTerminal(t *testing.T) {
	_, term := clitest.PTY(t)
	if !statusline.IsTerminal(term) {
		t.Error("a pseudo-terminal is not seen as a terminal")
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	file, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	for name, w := range map[string]io.Writer{"a pipe": w, "/dev/null": null, "a file": file, "a buffer": new(bytes.Buffer)} {
		if statusline.IsTerminal(w) {
			t.Errorf("%s is seen as a terminal", name)
		}
	}
}

// TestLineRewrites: each status replaces the last on its line; Clear
// erases it, and only once.
func TestLineRewrites(t *testing.T) {
	var b bytes.Buffer
	l := statusline.New(&b)
	l.Clear() // nothing shown: nothing to erase
	l.Show("one")
	l.Show("two")
	l.Clear()
	l.Clear()
	if got, want := b.String(), "\rone\x1b[K\rtwo\x1b[K\r\x1b[K"; got != want {
		t.Errorf("wrote %q, want %q", got, want)
	}
}

func TestBar(t *testing.T) {
	for _, c := range []struct {
		done, total int64
		want        string
	}{
		{0, 10, "[          ]"}, {5, 10, "[=====     ]"}, {10, 10, "[==========]"},
		{12, 10, "[==========]"}, {3, 0, "[          ]"}, {-1, 10, "[          ]"},
	} {
		if got := statusline.Bar(c.done, c.total, 10); got != c.want {
			t.Errorf("Bar(%d, %d) = %q, want %q", c.done, c.total, got, c.want)
		}
	}
}
