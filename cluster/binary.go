package cluster

import (
	"fmt"
	"strings"

	"github.com/tsys-go/tsys/clusterpolicy"
	"github.com/tsys-go/tsys/internal/buildinfo"
	"github.com/tsys-go/tsys/sched"
)

// Every node of a cluster must run the same program: a task crosses as
// its registered name, and a node runs it only if its binary registered
// that name. A job's root lists its tasks that may cross in its
// jobStart; a node that lacks any of them refuses the job at once, with
// a reason naming them and both binaries, rather than failing the job at
// the first loan of one.

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

// lacksReason says what a node that lacks a job's tasks tells its root.
func lacksReason(node clusterpolicy.NodeID, lacks []string, rootBinary string) string {
	const shown = 5
	names := strings.Join(lacks[:min(len(lacks), shown)], ", ")
	if len(lacks) > shown {
		names += fmt.Sprintf(" and %d more", len(lacks)-shown)
	}
	prog, _, _ := strings.Cut(rootBinary, " ")
	return fmt.Sprintf("node %s runs %s, which has no task %s that may cross nodes, of the job's program %s: start every node from the job's program's own binary (%s node --join ...)",
		node, buildinfo.Binary(), names, rootBinary, prog)
}
