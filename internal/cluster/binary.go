package cluster

import (
	"fmt"
	"strings"

	"github.com/tsys-go/tsys/internal/buildinfo"
	"github.com/tsys-go/tsys/internal/clusterpolicy"
	"github.com/tsys-go/tsys/internal/sched"
	"github.com/tsys-go/tsys/internal/typedesc"
)

// Every node of a cluster must run the same program: a task crosses as
// its registered name, and a node runs it as its own binary registered
// that name. A job's root lists its tasks that may cross in its
// jobStart, with a fingerprint of each one's types and the root's build;
// a node that lacks any of them, describes one's types otherwise, or runs
// another build refuses the job at once, with a reason naming them and
// both builds, rather than failing the job at the first loan of one or,
// worse, computing another answer with a task's other body. Only the
// build may be overlooked, on the operator's word (AcceptBuilds): a task
// of other types would misread its argument whatever anyone says.

// missingKinds are the names among kinds that this binary has not
// registered, or has registered as tasks that may not cross nodes (its
// version of the program gives them other types).
func missingKinds(kinds []string) []string {
	var out []string
	for _, name := range kinds {
		if k, ok := sched.LookupKind(name); !ok || !k.Lendable() {
			out = append(out, name)
		}
	}
	return out
}

// printsOf are the fingerprints of the registered tasks kinds, in order.
func printsOf(kinds []string) []taskPrint {
	out := make([]taskPrint, 0, len(kinds))
	for _, name := range kinds {
		var types string
		if k, ok := sched.LookupKind(name); ok {
			types = k.Types
		}
		out = append(out, taskPrint{Types: types, Hash: typedesc.Hash(types)})
	}
	return out
}

// typeDiff is a task whose types differ between the root and this node.
type typeDiff struct {
	name       string
	root, here string
}

// otherTypes lists the tasks of m whose types this binary describes
// otherwise; m lists them all (missingKinds is empty).
func otherTypes(m *jobStart) []typeDiff {
	var out []typeDiff
	for i, name := range m.Tasks[:min(len(m.Tasks), len(m.Prints))] {
		k, _ := sched.LookupKind(name)
		if typedesc.Hash(k.Types) != m.Prints[i].Hash {
			out = append(out, typeDiff{name: name, root: m.Prints[i].Types, here: k.Types})
		}
	}
	return out
}

// buildCheck is what a node makes of a job's start: refuse the job
// (reason, with lacks the tasks at fault, and otherBuild for another
// build), or serve it, with a warning to log when it serves another
// build on the operator's word.
type buildCheck struct {
	reason     string
	lacks      []string
	otherBuild bool
	warning    string
}

// checkStart checks a job's start against this binary; accept is the
// node's own Config.AcceptBuilds.
func checkStart(node clusterpolicy.NodeID, m *jobStart, accept bool) buildCheck {
	if lacks := missingKinds(m.Tasks); len(lacks) > 0 {
		return buildCheck{reason: lacksReason(node, lacks, m.Binary), lacks: lacks}
	}
	if !m.Printed {
		if len(m.Tasks) == 0 {
			return buildCheck{}
		}
		return buildCheck{otherBuild: true, reason: fmt.Sprintf(
			"node %s runs %s, and the job's program %s is of an older tsys that does not say which types its tasks take: %s",
			node, buildinfo.Current(), m.Binary, sameBinary(m.Binary))}
	}
	if diffs := otherTypes(m); len(diffs) > 0 {
		return buildCheck{reason: typesReason(node, diffs, m), lacks: diffNames(diffs)}
	}
	here := buildinfo.Current()
	if buildinfo.Same(here, m.Build) {
		return buildCheck{}
	}
	if accept || m.AcceptBuilds {
		return buildCheck{warning: fmt.Sprintf("node %s serves a job of another build of its program, as --accept-builds allows: here %s, at the root %s; if a task's body differs, the job's answer may be wrong",
			node, here, m.Build)}
	}
	return buildCheck{otherBuild: true, reason: fmt.Sprintf(
		"node %s runs another build of the job's program: here %s, at the root %s; a task's body may differ and the job's answer with it: %s, or, if you know both builds compute alike, pass --accept-builds to the node or the run",
		node, here, m.Build, sameBinary(m.Binary))}
}

// typesReason says which tasks' types differ, with both descriptions of
// the first.
func typesReason(node clusterpolicy.NodeID, diffs []typeDiff, m *jobStart) string {
	first := diffs[0]
	more := ""
	if len(diffs) > 1 {
		more = fmt.Sprintf(" (and %d more: %s)", len(diffs)-1, shortList(diffNames(diffs[1:])))
	}
	return fmt.Sprintf("node %s runs %s, whose task %s takes other types than in the job's program %s%s: here %s, at the root %s; its tasks would misread each other's bytes: %s",
		node, buildinfo.Current(), first.name, m.Binary, more, first.here, first.root, sameBinary(m.Binary))
}

func diffNames(diffs []typeDiff) []string {
	out := make([]string, len(diffs))
	for i, d := range diffs {
		out[i] = d.name
	}
	return out
}

// lacksReason says what a node that lacks a job's tasks tells its root.
func lacksReason(node clusterpolicy.NodeID, lacks []string, rootBinary string) string {
	return fmt.Sprintf("node %s runs %s, which has no task %s that may cross nodes, of the job's program %s: %s",
		node, buildinfo.Binary(), shortList(lacks), rootBinary, sameBinary(rootBinary))
}

// shortList names at most a few tasks, and counts the rest.
func shortList(names []string) string {
	const shown = 5
	s := strings.Join(names[:min(len(names), shown)], ", ")
	if len(names) > shown {
		s += fmt.Sprintf(" and %d more", len(names)-shown)
	}
	return s
}

// sameBinary is the remedy: one binary on every node.
func sameBinary(rootBinary string) string {
	prog, _, _ := strings.Cut(rootBinary, " ")
	return fmt.Sprintf("start every node from the job's program's own binary (%s node --join ...)", prog)
}
