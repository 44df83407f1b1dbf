package cluster_test

import (
	debugbuildinfo "debug/buildinfo"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tsys-go/tsys/internal/buildinfo"
	"github.com/tsys-go/tsys/internal/proctest"
)

// buildVariant builds testnode into dir/name with extra go build flags:
// another build of the same program.
func buildVariant(t *testing.T, dir, name string, flags ...string) string {
	t.Helper()
	bin := filepath.Join(dir, name)
	args := append([]string{"build", "-o", bin}, flags...)
	if os.Getenv("TSYS_TEST_RACE") != "" {
		args = append(args, "-race")
	}
	if out, err := exec.Command("go", append(args, "github.com/tsys-go/tsys/internal/testnode")...).CombinedOutput(); err != nil {
		t.Fatalf("building %s: %v\n%s", name, err, out)
	}
	return bin
}

// buildName is how the refusals name a binary's build: by its module
// version, revision and flags where a tree without changes stamped them
// (a CI clone), by its Go build ID otherwise (buildinfo.Build.String).
func buildName(t *testing.T, bin string) string {
	t.Helper()
	info, err := debugbuildinfo.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	b := buildinfo.FromInfo(info, true)
	if b.ID, err = buildinfo.ReadBuildID(bin); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// variantNode starts a node process of binary bin, as c.node does.
// refused checks a job that one node refused: the root's log (rootLog)
// says each of rootSays, the node's says nodeSays, and the node ran no
// leaf of the job tagged tag.
func (c *procs) refused(t *testing.T, rootLog string, node *proctest.Node, tag, nodeSays string, rootSays ...string) {
	t.Helper()
	for _, want := range rootSays {
		if !strings.Contains(rootLog, want) {
			t.Errorf("the root did not say %q:\n%s", want, rootLog)
		}
	}
	t.Logf("the root said:\n%s", rootLog)
	if !strings.Contains(node.Stderr.String(), nodeSays) {
		t.Errorf("the node did not say it refused the job (%q):\n%s", nodeSays, node.Stderr.String())
	}
	if n := ranBy(c.runs(), tag, pid(node)); n != 0 {
		t.Errorf("the refusing node ran %d leaves of the job", n)
	}
}

func (c *procs) variantNode(bin string, args ...string) *proctest.Node {
	c.t.Helper()
	n, err := proctest.StartNode(c.t, exec.Command(bin, append([]string{"node", "--bind", "127.0.0.1:0", "--workers", "1"}, args...)...))
	if err != nil {
		c.t.Fatal(err)
	}
	return n
}

// TestProcessMixedBuilds: real processes of two builds of one program.
// A node whose build differs only in a task's body refuses the job at its
// start, and the root says so, naming both builds; the job runs on
// without it, right. With --accept-builds, on the run or on the node, it
// serves the job (one warning) and runs leaves of it. A node whose task
// takes another argument type refuses the job even with the option, naming
// the task and both types.
func TestProcessMixedBuilds(t *testing.T) {
	c := newProcs(t)
	dir := t.TempDir()
	otherBody := buildVariant(t, dir, "otherbody", "-ldflags", "-X main.body=reversed")
	otherType := buildVariant(t, dir, "othertype", "-tags", "testnode_othertype")
	ours, theirs := buildName(t, c.bin), buildName(t, otherBody)
	if ours == theirs {
		t.Fatalf("the two builds have one name, %s", ours)
	}

	t.Run("another body is refused", func(t *testing.T) {
		c := c.with(t)
		node := c.variantNode(otherBody)
		j := c.start("body", node.Gossip, gentle...)
		c.until("the root reports the refusal", func() bool { return strings.Contains(j.stderr.String(), "another build of this program") })
		j.release()
		j.wait(t)
		c.refused(t, j.stderr.String(), node, "body", "refusing a job of another build of this program",
			node.Name, ours, theirs, "--accept-builds", "start every node from the job's program's own binary")
	})

	for _, where := range []string{"run", "node"} {
		t.Run("another body is served with --accept-builds on the "+where, func(t *testing.T) {
			c := c.with(t)
			var runArgs, nodeArgs []string
			if where == "run" {
				runArgs = []string{"--accept-builds"}
			} else {
				nodeArgs = []string{"--accept-builds"}
			}
			tag := "accept" + where
			node := c.variantNode(otherBody, nodeArgs...)
			j := c.start(tag, node.Gossip, append(runArgs, gentle...)...)
			c.until("the node of another build runs leaves of the job", func() bool { return ranBy(c.runs(), tag, pid(node)) > 0 })
			j.release()
			j.wait(t)
			c.ranOnce(tag)
			if got := strings.Count(node.Stderr.String(), "serving another build"); got != 1 || !strings.Contains(node.Stderr.String(), theirs) {
				t.Errorf("the node warned %d times of serving another build, want once naming its build:\n%s", got, node.Stderr.String())
			}
			if strings.Contains(j.stderr.String(), "the job runs without it") {
				t.Errorf("the root ran without the node:\n%s", j.stderr.String())
			}
		})
	}

	t.Run("another type is refused whatever the option", func(t *testing.T) {
		c := c.with(t)
		node := c.variantNode(otherType, "--accept-builds")
		j := c.start("type", node.Gossip, append([]string{"--accept-builds"}, gentle...)...)
		c.until("the root reports the refusal", func() bool { return strings.Contains(j.stderr.String(), "lacks this job's tasks") })
		j.release()
		j.wait(t)
		c.refused(t, j.stderr.String(), node, "type", "refusing a job whose tasks this binary lacks",
			node.Name, "task cluster.testnode.sum takes other types", "Stride int64", "at the root func(main.Span=struct{")
	})
}

// with is c for subtest t: its processes stop when t ends, and its
// ledger is c's.
func (c *procs) with(t *testing.T) *procs {
	d := *c
	d.t = t
	return &d
}
