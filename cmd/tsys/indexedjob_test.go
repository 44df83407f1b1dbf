package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tsys-go/tsys/internal/proctest"
)

// TestIndexedJobManifest: the Indexed Job of deploy/kubernetes names its
// ranks as the launcher reads them (TSYS_SIZE its completions, TSYS_ROOT
// pod 0 behind its headless Service), and its pods' command line, run
// as three processes with the variables Kubernetes and the manifest give
// (rank 0's address here on loopback, where no cluster DNS names it),
// prints one verified result. Kubernetes itself does not run here.
func TestIndexedJobManifest(t *testing.T) {
	var job, svc map[string]any
	for _, doc := range manifests(t) {
		if dig(doc, "spec", "completionMode") == "Indexed" {
			job = doc
		}
		if doc["kind"] == "Service" && dig(doc, "metadata", "name") == "tsys-uts" {
			svc = doc
		}
	}
	if job == nil || svc == nil {
		t.Fatal("no Indexed Job with its Service tsys-uts in deploy/kubernetes")
	}
	name := dig(job, "metadata", "name").(string)
	spec := dig(job, "spec", "template", "spec")
	c := dig(spec, "containers", 0)
	env := map[string]string{}
	for _, e := range dig(c, "env").([]any) {
		env[dig(e, "name").(string)] = dig(e, "value").(string)
	}
	completions := dig(job, "spec", "completions").(int)
	if env["TSYS_SIZE"] != strconv.Itoa(completions) || dig(job, "spec", "parallelism") != completions {
		t.Errorf("TSYS_SIZE %s, completions %d, parallelism %v: want all the same, every rank at once", env["TSYS_SIZE"], completions, dig(job, "spec", "parallelism"))
	}
	if sub := dig(spec, "subdomain"); sub != dig(svc, "metadata", "name") || dig(svc, "spec", "clusterIP") != "None" ||
		env["TSYS_ROOT"] != name+"-0."+sub.(string) || dig(svc, "spec", "selector", "job-name") != name {
		t.Errorf("TSYS_ROOT %s is not pod 0 (%s-0) behind the Job's headless Service (subdomain %v)", env["TSYS_ROOT"], name, sub)
	}

	args := strs(dig(c, "args"))
	dir := t.TempDir()
	key := filepath.Join(dir, "key")
	os.WriteFile(key, []byte("the Secret tsys-key, mounted"), 0o600)
	for i, a := range args {
		switch {
		case strings.HasPrefix(a, "--tree="):
			args[i] = "--tree=T1" // a test's tree
		case strings.HasPrefix(a, "--key-file="):
			args[i] = "--key-file=" + key
		}
	}
	port := strconv.Itoa(freeTCPPort(t))
	outs := make([]bytes.Buffer, completions)
	errs := make([]bytes.Buffer, completions)
	var cmds []*exec.Cmd
	for i := range completions {
		cmd := exec.Command(tsysBin, append(args, "--workers", "1", "--launch-network", "127.0.0.0/8")...)
		cmd.Env = append(os.Environ(), "JOB_COMPLETION_INDEX="+strconv.Itoa(i), "TSYS_SIZE="+env["TSYS_SIZE"],
			"TSYS_ROOT=127.0.0.1:"+port, "HOSTNAME="+name+"-"+strconv.Itoa(i))
		cmd.Stdout, cmd.Stderr = &outs[i], &errs[i]
		cmds = append(cmds, startCmd(t, cmd))
	}
	for i, cmd := range cmds {
		if err := waitTimeout(t, cmd, proctest.JobTimeout); err != nil {
			t.Fatalf("pod %d: %v\n%s", i, err, errs[i].String())
		}
	}
	reports := jsonLines(t, outs[0].Bytes())
	if len(reports) != 1 {
		t.Fatalf("pod 0 printed %q", outs[0].String())
	}
	checkLaunched(t, reports[0], completions)
	if l := reports[0]["launch"].(map[string]any); l["launcher"] != "Kubernetes" {
		t.Errorf("launcher %v", l["launcher"])
	}
}
