package main

import (
	"strings"
	"testing"
)

func TestJudge(t *testing.T) {
	added := change{"tsys.Close", "added", false}
	method := change{"tsys.Runtime.Pool", "added", false}
	run := change{"tsys.Run", "added", false}
	gone := change{"tsys.Span", "removed", true}
	changed := change{"tsys.Workers", "changed from func(int) Option to func(int64) Option", true}
	deprecated := map[string]bool{"tsys.Span": true}
	for _, tc := range []struct {
		name       string
		c          change
		bullets    []string
		deprecated map[string]bool
		want       string // a word of the fix; "" passes
	}{
		{"an addition without a line", added, []string{"tsys.Other: added"}, nil, "add a bullet"},
		{"an addition named", added, []string{"`tsys.Close` stops the workers"}, nil, ""},
		{"a method named as go doc spells it", method, []string{"tsys.Runtime.Pool returns the pool."}, nil, ""},
		{"a method named by its type alone", method, []string{"tsys.Runtime gains a method"}, nil, "add a bullet"},
		{"a longer name does not name a shorter", run, []string{"tsys.Runtime and tsys.RunErr"}, nil, "add a bullet"},
		{"a method does not name its type's prefix", run, []string{"tsys.Run.Foo"}, nil, "add a bullet"},
		{"a name at a sentence's end", run, []string{"a new form of tsys.Run."}, nil, ""},
		{"another package's name", run, []string{"cli.Run: added"}, nil, "add a bullet"},
		{"a deprecated name removed", gone, []string{"tsys.Span: removed (deprecated since v0.2)"}, deprecated, ""},
		{"a deprecated name removed, the line silent", gone, []string{"tsys.Span: gone"}, deprecated, `must say "removed"`},
		{"a removal without deprecation", gone, []string{"tsys.Span removed"}, nil, "not deprecated at the baseline"},
		{"a removal without deprecation, deliberate", gone, []string{"**Breaking**: tsys.Span removed"}, nil, ""},
		{"a signature changed", changed, []string{"tsys.Workers takes an int64"}, nil, "deprecate tsys.Workers"},
		{"a signature changed, deliberate", changed, []string{"tsys.Workers takes an int64 (breaking)"}, nil, ""},
		{"a changed signature is no removal", changed, []string{"tsys.Workers removed"}, deprecated, "deprecate"},
		{"the word in another bullet", gone, []string{"tsys.Span: gone", "tsys.Other: breaking"}, nil, "not deprecated"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			probs := judge([]change{tc.c}, tc.bullets, tc.deprecated)
			switch {
			case tc.want == "" && len(probs) != 0:
				t.Fatalf("problems %v, want none", probs)
			case tc.want != "" && (len(probs) != 1 || !strings.Contains(probs[0].Fix, tc.want)):
				t.Fatalf("problems %v, want one whose fix says %q", probs, tc.want)
			}
		})
	}
}

func TestJudgeEveryChange(t *testing.T) {
	changes, err := parseReport("tsys", sampleReport)
	if err != nil {
		t.Fatal(err)
	}
	if probs := judge(changes, nil, nil); len(probs) != len(changes) {
		t.Fatalf("%d problems for %d unrecorded changes: %v", len(probs), len(changes), probs)
	}
	recorded := []string{
		"tsys.Runtime.InlinePolicy2 replaces tsys.Runtime.InlinePolicy (breaking).",
		"tsys.Workers takes an int64; tsys.Task.Fork, tsys.Task.Name and tsys.Future.Ready go: breaking.",
		"tsys.Config.Name and tsys.NewThing: added.",
	}
	if probs := judge(changes, recorded, nil); len(probs) != 0 {
		t.Fatalf("problems %v, want none", probs)
	}
}
