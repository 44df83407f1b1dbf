package share

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// randomJobs makes k jobs in order with random least and most counts.
func randomJobs(r *rand.Rand, k int) []Job {
	jobs := make([]Job, k)
	for i := range jobs {
		jobs[i] = Job{ID: uint64(i+1)*7919 | 1, Root: fmt.Sprintf("client-%d", i), Began: int64(i), Min: r.IntN(4)}
		if r.IntN(2) == 0 {
			jobs[i].Max = max(jobs[i].Min, 1) + r.IntN(4)
		}
	}
	return jobs
}

func nodeNames(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("n%02d", i)
	}
	return out
}

// TestCountsAreEquipartition checks Kale's rules on random jobs: every
// served job has its least and no more than its most; jobs are served in
// order of arrival; nodes are left over only when every served job is at
// its most; above their least, shares differ by at most one.
func TestCountsAreEquipartition(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 5000 {
		nodes, jobs := r.IntN(12), randomJobs(r, r.IntN(5))
		c := Counts(nodes, jobs)
		used, stopped := 0, false
		for i, j := range jobs {
			used += c[i]
			if c[i] == 0 {
				stopped = true
				continue
			}
			if stopped {
				t.Fatalf("%d nodes, jobs %+v: counts %v serve job %d after one that waits", nodes, jobs, c, i)
			}
			if c[i] < max(j.Min, 1) || (j.Max > 0 && c[i] > j.Max) {
				t.Fatalf("%d nodes, jobs %+v: counts %v break job %d's bounds", nodes, jobs, c, i)
			}
		}
		if used > nodes {
			t.Fatalf("%d nodes, jobs %+v: counts %v use %d", nodes, jobs, c, used)
		}
		for i, j := range jobs {
			if c[i] == 0 {
				continue
			}
			if used < nodes && j.Max != c[i] {
				t.Fatalf("%d nodes, jobs %+v: counts %v leave nodes idle while job %d could take more", nodes, jobs, c, i)
			}
			for k, o := range jobs {
				above := c[i] > max(j.Min, 1)
				if above && c[k] > 0 && c[i] > c[k]+1 && (o.Max == 0 || c[k] < o.Max) {
					t.Fatalf("%d nodes, jobs %+v: counts %v: job %d has %d, job %d only %d", nodes, jobs, c, i, c[i], k, c[k])
				}
			}
		}
	}
}

// TestDealKeepsNodes: every node serves at most one job, each job gets its
// count, and when a job arrives the earliest job keeps nodes it had: it
// gives some up, and takes none it did not have.
func TestDealKeepsNodes(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		nodes, jobs := nodeNames(1+r.IntN(12)), randomJobs(r, 2+r.IntN(3))
		before := Deal(nodes, jobs[:len(jobs)-1])
		after := Deal(nodes, jobs)
		c := Counts(len(nodes), jobs)
		got := map[uint64]int{}
		for _, job := range after {
			got[job]++
		}
		for i, j := range jobs {
			if got[j.ID] != c[i] {
				t.Fatalf("job %d dealt %d nodes, counts say %d", i, got[j.ID], c[i])
			}
		}
		for node, job := range after {
			if job == jobs[0].ID && before[node] != job {
				t.Fatalf("node %s moved from job %x to %x when a later job came", node, before[node], job)
			}
		}
	}
}

func TestEquiGrantsOneJob(t *testing.T) {
	nodes := nodeNames(3)
	jobs := []Job{{ID: 11, Root: "a"}, {ID: 13, Root: "b"}}
	dealt := map[uint64]int{}
	for _, self := range nodes {
		g := Equi{}.Grants(View{Self: self, Workers: 2, Nodes: nodes, Jobs: jobs, Busy: []int{0, 0}})
		active := 0
		for i, gr := range g {
			if gr.Active {
				active++
				dealt[jobs[i].ID]++
				if gr.Workers != 2 {
					t.Errorf("node %s: an active job gets %d workers of 2", self, gr.Workers)
				}
			} else if gr.Workers != 0 {
				t.Errorf("node %s: a job it does not take part in gets %d workers", self, gr.Workers)
			}
		}
		if active != 1 {
			t.Errorf("node %s takes part in %d jobs", self, active)
		}
	}
	if dealt[11] != 2 || dealt[13] != 1 {
		t.Errorf("3 nodes dealt %v; want 2 to the first job and 1 to the second", dealt)
	}
}

func TestFCHPGivesLaterJobsIdleWorkers(t *testing.T) {
	v := View{Self: "n", Workers: 4, Jobs: []Job{{ID: 1}, {ID: 3}, {ID: 5}}, Busy: []int{3, 1, 0}}
	g := FCHP{}.Grants(v)
	want := []int{4, 1, 0}
	for i := range g {
		if g[i].Workers != want[i] || !g[i].Active {
			t.Fatalf("grants %+v, want workers %v, all active", g, want)
		}
	}
	v.Busy = []int{0, 0, 0}
	for i, gr := range (FCHP{}).Grants(v) {
		if gr.Workers != 4 {
			t.Errorf("job %d gets %d of 4 idle workers", i, gr.Workers)
		}
	}
}

func TestExclusiveAdmitsOne(t *testing.T) {
	v := View{Self: "n", Workers: 1}
	if ok, why := (Exclusive{}).Admit(v, Job{ID: 1, Root: "a"}); !ok {
		t.Fatalf("an idle node refused a job: %s", why)
	}
	v.Jobs = []Job{{ID: 1, Root: "a"}}
	if ok, why := (Exclusive{}).Admit(v, Job{ID: 3, Root: "b"}); ok || !strings.Contains(why, "one job at a time") {
		t.Fatalf("a busy node admitted a second job (%v, %q)", ok, why)
	}
}

func TestParse(t *testing.T) {
	for _, name := range Names {
		p, err := Parse(name)
		if err != nil || p.Name() != name {
			t.Errorf("Parse(%q) = %v, %v", name, p, err)
		}
	}
	if _, err := Parse("roundrobin"); err == nil || !strings.Contains(err.Error(), "fchp, equi, exclusive") {
		t.Errorf("an unknown policy: %v", err)
	}
}
