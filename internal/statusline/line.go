package statusline

import (
	"io"
	"strings"
)

// Line is one line of a terminal that a status rewrites. Not safe for
// concurrent use: one goroutine draws it.
type Line struct {
	w     io.Writer
	shown bool
}

// New returns the status line drawn on w, a terminal.
func New(w io.Writer) *Line { return &Line{w: w} }

// Show replaces the line with s: a carriage return, s, and an erase to
// the end of the line, so that a shorter s leaves nothing of the last.
func (l *Line) Show(s string) {
	io.WriteString(l.w, "\r"+s+"\x1b[K")
	l.shown = true
}

// Clear erases the line, if one was shown, so that what is written next
// starts on a clean line rather than after the status.
func (l *Line) Clear() {
	if l.shown {
		io.WriteString(l.w, "\r\x1b[K")
		l.shown = false
	}
}

// Done ends the line where it is, keeping its last status on screen.
func (l *Line) Done() {
	if l.shown {
		io.WriteString(l.w, "\n")
		l.shown = false
	}
}

// Bar draws done of total as a bar width characters wide between
// brackets; a done past total fills it.
func Bar(done, total int64, width int) string {
	filled := 0
	if total > 0 {
		filled = int(min(done, total) * int64(width) / total)
	}
	filled = max(filled, 0)
	return "[" + strings.Repeat("=", filled) + strings.Repeat(" ", width-filled) + "]"
}
