package layering

import (
	"fmt"
	"slices"
	"strings"
)

// Package is what Check reads of one package in `go list -deps -json`'s
// output.
type Package struct {
	ImportPath string
	Imports    []string
}

// Violation is one package that breaks a rule: Chain is the shortest
// chain of imports from it to a package the rule forbids it, each path
// relative to Module.
type Violation struct {
	Rule  *Rule
	Chain []string
}

func (v Violation) String() string {
	return fmt.Sprintf("%s: %s\n\t%s", v.Rule.Name, strings.Join(v.Chain, " -> "), v.Rule.Fix)
}

// Check applies rules to the import graph of pkgs and returns every
// package of the module that breaks one, each once per rule, sorted by
// package. A package outside pkgs is taken to import nothing.
func Check(pkgs []Package, rules []Rule) []Violation {
	imports := map[string][]string{}
	var mine []string // the module's packages, each once
	for _, p := range pkgs {
		from := Rel(p.ImportPath)
		if _, seen := imports[from]; !seen && (p.ImportPath == Module || strings.HasPrefix(p.ImportPath, Module+"/")) {
			mine = append(mine, from)
		}
		imports[from] = append(imports[from], p.Imports...)
		for i, q := range imports[from] {
			imports[from][i] = Rel(q)
		}
	}
	var out []Violation
	for i := range rules {
		r := &rules[i]
		for _, from := range mine {
			if !r.From(from) {
				continue
			}
			if chain := shortestChain(imports, from, r.To); chain != nil {
				out = append(out, Violation{Rule: r, Chain: chain})
			}
		}
	}
	slices.SortStableFunc(out, func(a, b Violation) int { return strings.Compare(a.Chain[0], b.Chain[0]) })
	return out
}

// shortestChain is the shortest chain of imports from one package to
// any that to accepts (from itself excluded), or nil: a breadth-first
// search, so the chain names the fewest packages that lead there.
func shortestChain(imports map[string][]string, from string, to func(string) bool) []string {
	parent := map[string]string{from: ""}
	queue := []string{from}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, q := range imports[p] {
			if _, seen := parent[q]; seen {
				continue
			}
			parent[q] = p
			if to(q) {
				var chain []string
				for x := q; x != ""; x = parent[x] {
					chain = append(chain, x)
				}
				slices.Reverse(chain)
				return chain
			}
			queue = append(queue, q)
		}
	}
	return nil
}

// Rel is path relative to Module, or path as it is when it lies outside.
// A package go list names twice, once as built for one command's profile
// ("internal/sched [github.com/tsys-go/tsys/cmd/tsys]"), is one package.
func Rel(path string) string {
	path, _, _ = strings.Cut(path, " [")
	if path == Module {
		return "."
	}
	return strings.TrimPrefix(path, Module+"/")
}
