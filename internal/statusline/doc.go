// Package statusline draws a one-line status on a terminal, rewritten in
// place with a carriage return: tsys run's live status (package cli) and
// tsys bench's progress (package bench) share it. In a pipe or a CI log
// such a line would only be noise, so callers draw one only where
// IsTerminal says a person watches.
package statusline
