package sched

import (
	"fmt"
	"slices"
	"sync"
)

// The registry maps task names to kinds. Every process of a cluster runs the
// same binary and so registers the same names at init; a task arriving from
// another node is found here by name.
var registry = struct {
	sync.RWMutex
	byName map[string]*Kind
	kinds  []*Kind
}{byName: map[string]*Kind{}}

// RegisterKind adds k under k.Name and sets k.ID.
func RegisterKind(k *Kind) error {
	if k.Name == "" || k.Run == nil {
		return fmt.Errorf("sched: a task kind needs a name and a run function")
	}
	registry.Lock()
	defer registry.Unlock()
	if _, dup := registry.byName[k.Name]; dup {
		return fmt.Errorf("sched: task name %q registered twice", k.Name)
	}
	k.ID = len(registry.kinds)
	registry.byName[k.Name] = k
	registry.kinds = append(registry.kinds, k)
	return nil
}

// LookupKind finds a registered kind by name.
func LookupKind(name string) (*Kind, bool) {
	registry.RLock()
	defer registry.RUnlock()
	k, ok := registry.byName[name]
	return k, ok
}

// KindNames returns the names of every registered kind, sorted: what a
// binary serves (its version --tasks lists them), lendable or not.
func KindNames() []string {
	registry.RLock()
	defer registry.RUnlock()
	out := make([]string, len(registry.kinds))
	for i, k := range registry.kinds {
		out[i] = k.Name
	}
	slices.Sort(out)
	return out
}

// LendableKinds returns the names of the registered kinds whose tasks may
// cross nodes, sorted: what a job's root asks every node to have.
func LendableKinds() []string {
	registry.RLock()
	defer registry.RUnlock()
	var out []string
	for _, k := range registry.kinds {
		if k.Lendable() {
			out = append(out, k.Name)
		}
	}
	slices.Sort(out)
	return out
}
