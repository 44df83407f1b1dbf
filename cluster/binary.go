package cluster

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/tsys-go/tsys/sched"
)

// Every node of a cluster must run the same program: a task crosses as
// its registered name, and a node runs it only if its binary registered
// that name. A job's root lists its tasks that may cross in its
// jobStart; a node that lacks any of them refuses the job at once, with
// a reason naming them and both binaries, rather than failing the job at
// the first loan of one.

// missingKinds are the names among kinds that this binary has not
// registered as tasks that may cross nodes.
func missingKinds(kinds []string) []string {
	var out []string
	for _, name := range kinds {
		if k, ok := sched.LookupKind(name); !ok || k.EncodeArg == nil {
			out = append(out, name)
		}
	}
	return out
}

// lacksReason says what a node that lacks a job's tasks tells its root.
func lacksReason(node sched.NodeID, lacks []string, rootBinary string) string {
	const shown = 5
	names := strings.Join(lacks[:min(len(lacks), shown)], ", ")
	if len(lacks) > shown {
		names += fmt.Sprintf(" and %d more", len(lacks)-shown)
	}
	prog, _, _ := strings.Cut(rootBinary, " ")
	return fmt.Sprintf("node %s runs %s, which has no task %s of the job's program %s: start every node from the job's program's own binary (%s node --join ...)",
		node, thisBinary(), names, rootBinary, prog)
}

// thisBinary names this process's program for those messages: its file
// name, and its module version and revision when the build recorded them.
func thisBinary() string {
	name := "(unknown binary)"
	if exe, err := os.Executable(); err == nil {
		name = filepath.Base(exe)
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return name
	}
	s := name + " (" + info.Main.Path
	if v := info.Main.Version; v != "" && v != "(devel)" {
		s += " " + v
	}
	for _, b := range info.Settings {
		if b.Key == "vcs.revision" {
			s += " rev " + b.Value[:min(12, len(b.Value))]
		}
	}
	return s + ")"
}
