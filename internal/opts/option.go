package opts

import "strings"

// Option describes one option a name takes after its colon, for help texts
// and errors: a KEY=VALUE setting, or a bare word such as fishing's victim
// choice. A package declares its options next to the parser that reads
// them, so that what the help promises and what the parser takes are
// written side by side.
type Option struct {
	// Key is the KEY of KEY=VALUE; "" for a bare word.
	Key string
	// Value names the kind of value (N a whole number, D a Go duration,
	// F a fraction), or for a bare word the words it may be, "a|b|c".
	Value string
	// Default is the value taken when the option is absent, spelled as the
	// parser reads it; "" when it is chosen at run time, Help saying how.
	Default string
	// Help is one line: what the option sets.
	Help string
}

// String is the option as written: "limit=N", or "random|load|zone".
func (o Option) String() string {
	if o.Key == "" {
		return o.Value
	}
	return o.Key + "=" + o.Value
}

// Known lists options for an error's "want ...": "limit=N, period=D or
// cost=D".
func Known(options []Option) string {
	var s []string
	for _, o := range options {
		s = append(s, o.String())
	}
	switch len(s) {
	case 0:
		return "no option"
	case 1:
		return s[0]
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}
