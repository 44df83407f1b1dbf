package share

import (
	"cmp"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"

	"github.com/tsys-go/tsys/internal/jobid"
)

// Job is a job as every node sees it.
type Job struct {
	ID   uint64
	Root string // the node its root task runs on; it serves no other job
	// Began orders the jobs: when the root began the job (Unix ns on the
	// root's clock), then ID.
	Began int64
	// Min and Max are the least and most nodes the job can use, besides
	// its root (0: at least 1, at most all); equi heeds them.
	Min, Max int
}

// View is what a node knows when it decides.
type View struct {
	Self    string
	Workers int // the node's workers
	// Nodes are the cluster's nodes that serve jobs (its clients and the
	// roots of Jobs left out), Self among them.
	Nodes []string
	// Jobs are the jobs this node serves, in order (Sort); Busy[i] is how
	// many of its workers Jobs[i] keeps busy now.
	Jobs []Job
	Busy []int
}

// Grant is what a node gives one job: Workers may run its tasks, and
// Active says it takes part (asks for and accepts the job's work).
type Grant struct {
	Workers int
	Active  bool
}

// Policy shares a node's workers between the jobs it serves.
type Policy interface {
	// Name is what --share takes.
	Name() string
	// Admit says whether the node serves job j besides those of v (the
	// jobs it serves now), and if not, why.
	Admit(v View, j Job) (bool, string)
	// Grants gives each of v.Jobs its grant, in order.
	Grants(v View) []Grant
}

// Sort puts jobs in the order of their arrival.
func Sort(jobs []Job) { slices.SortFunc(jobs, Compare) }

// Compare orders two jobs by their arrival: the earlier began first, ties
// broken by ID, so that every node orders them alike.
func Compare(a, b Job) int {
	return cmp.Or(cmp.Compare(a.Began, b.Began), cmp.Compare(a.ID, b.ID))
}

// Names are the policies --share takes.
var Names = []string{"fchp", "equi", "exclusive"}

// Parse returns the policy named s.
func Parse(s string) (Policy, error) {
	switch s {
	case "", "fchp":
		return FCHP{}, nil
	case "equi":
		return Equi{}, nil
	case "exclusive":
		return Exclusive{}, nil
	}
	return nil, fmt.Errorf("--share %q: want one of %s", s, strings.Join(Names, ", "))
}

// Exclusive serves one job at a time.
type Exclusive struct{}

func (Exclusive) Name() string { return "exclusive" }

func (Exclusive) Admit(v View, j Job) (bool, string) {
	for _, o := range v.Jobs {
		if o.ID != j.ID {
			return false, fmt.Sprintf("node %s serves job %s of %s; with --share exclusive it serves one job at a time", v.Self, jobid.ID(o.ID), o.Root)
		}
	}
	return true, ""
}

func (Exclusive) Grants(v View) []Grant { return all(v) }

// all grants every job every worker.
func all(v View) []Grant {
	g := make([]Grant, len(v.Jobs))
	for i := range g {
		g[i] = Grant{Workers: v.Workers, Active: true}
	}
	return g
}

// FCHP is Turner's first-come-highest-priority. A job is never held back
// by a later one, and the root of a job, where its critical join runs,
// runs nothing else (Job.Root), so low-priority work never lands there.
type FCHP struct{}

func (FCHP) Name() string { return "fchp" }

func (FCHP) Admit(View, Job) (bool, string) { return true, "" }

// Grants gives each job the workers the jobs before it leave idle.
func (FCHP) Grants(v View) []Grant {
	g := make([]Grant, len(v.Jobs))
	free := v.Workers
	for i := range v.Jobs {
		g[i] = Grant{Workers: free, Active: true}
		free -= min(max(v.Busy[i], 0), free)
	}
	return g
}

// Equi is Kale's dynamic equipartition.
type Equi struct{}

func (Equi) Name() string { return "equi" }

func (Equi) Admit(View, Job) (bool, string) { return true, "" }

// Grants gives every worker to the job this node is dealt, none to others.
func (Equi) Grants(v View) []Grant {
	mine := Deal(v.Nodes, v.Jobs)[v.Self]
	g := make([]Grant, len(v.Jobs))
	for i, j := range v.Jobs {
		if j.ID == mine {
			g[i] = Grant{Workers: v.Workers, Active: true}
		}
	}
	return g
}

// Counts is how many nodes equipartition gives each job (jobs in order):
// its least, in order while nodes last (a job that cannot have its least,
// and every later one, get none and wait), then the rest one at a time,
// each to the served job with the fewest that is below its most (the
// earliest of those that tie).
func Counts(nodes int, jobs []Job) []int {
	counts := make([]int, len(jobs))
	left := nodes
	served := 0
	for i, j := range jobs {
		least := max(j.Min, 1)
		if least > left {
			break
		}
		counts[i] = least
		left -= least
		served++
	}
	for ; left > 0; left-- {
		next := -1
		for i := range served {
			if m := jobs[i].Max; m > 0 && counts[i] >= m {
				continue
			}
			if next < 0 || counts[i] < counts[next] {
				next = i
			}
		}
		if next < 0 {
			break // every job has its most
		}
		counts[next]++
	}
	return counts
}

// Deal says which job each node serves under equipartition (0: none).
// Jobs, in order, pick their Counts of the nodes still free, each the ones
// it ranks highest by a hash of (job, node). The ranking is the job's own,
// so the earliest job only ever loses nodes to a newcomer, never trades
// them; later jobs may trade some, since the nodes left to them change.
func Deal(nodes []string, jobs []Job) map[string]uint64 {
	counts := Counts(len(nodes), jobs)
	out := make(map[string]uint64, len(nodes))
	for i, j := range jobs {
		ranked := slices.Clone(nodes)
		slices.SortFunc(ranked, func(a, b string) int {
			return cmp.Or(cmp.Compare(rank(j.ID, b), rank(j.ID, a)), strings.Compare(a, b))
		})
		for _, node := range ranked {
			if counts[i] == 0 {
				break
			}
			if _, taken := out[node]; !taken {
				out[node] = j.ID
				counts[i]--
			}
		}
	}
	return out
}

// rank is how much job wants node: a hash of both.
func rank(job uint64, node string) uint64 {
	h := fnv.New64a()
	var b [8]byte
	for i := range b {
		b[i] = byte(job >> (8 * i))
	}
	h.Write(b[:])
	h.Write([]byte(node))
	return h.Sum64()
}
