package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// flagsOf lists the flags `tsys ARGS -h` prints.
func flagsOf(t *testing.T, args ...string) map[string]bool {
	t.Helper()
	out, _ := exec.Command(tsysBin, append(slices.Clone(args), "-h")...).CombinedOutput()
	flags := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^  --?(\S+)`).FindAllStringSubmatch(string(out), -1) {
		flags[m[1]] = true
	}
	if len(flags) == 0 {
		t.Fatalf("tsys %v -h listed no flags:\n%s", args, out)
	}
	return flags
}

// checkArgs fails the test for each --flag in a container's arguments that
// the command it runs does not have.
func checkArgs(t *testing.T, where string, args []string) {
	t.Helper()
	if len(args) == 0 {
		t.Fatalf("%s: no arguments", where)
	}
	cmd := args[:1]
	if args[0] == "run" {
		cmd = args[:2] // the app's flags too
	}
	known := flagsOf(t, cmd...)
	rest := args[len(cmd):]
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") || !known[name] {
			t.Errorf("%s: tsys %s has no flag %q", where, strings.Join(cmd, " "), a)
		}
		if !hasValue && i+1 < len(rest) && !strings.HasPrefix(rest[i+1], "-") {
			i++ // --flag VALUE
		}
	}
}

// manifests reads every YAML document under deploy/kubernetes.
func manifests(t *testing.T) []map[string]any {
	t.Helper()
	files, _ := filepath.Glob("../../deploy/kubernetes/*.yaml")
	if len(files) == 0 {
		t.Fatal("no manifests in deploy/kubernetes")
	}
	var docs []map[string]any
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		d := yaml.NewDecoder(bytes.NewReader(b))
		for {
			var doc map[string]any
			if err := d.Decode(&doc); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				t.Fatalf("%s does not parse: %v", f, err)
			}
			docs = append(docs, doc)
		}
	}
	return docs
}

// dig walks a parsed document along keys (strings) and indexes (ints).
func dig(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			l, _ := v.([]any)
			if k >= len(l) {
				return nil
			}
			v = l[k]
		}
	}
	return v
}

func strs(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

// TestDeployManifests: the Kubernetes manifests parse, every flag their
// containers pass exists, the nodes join through pod 0 of the StatefulSet
// behind a headless Service, the key comes from a Secret, and readiness is
// the node's /healthz on the port --http serves.
func TestDeployManifests(t *testing.T) {
	var svc, sts map[string]any
	containers := 0
	for _, doc := range manifests(t) {
		switch doc["kind"] {
		case "Service":
			svc = doc
		case "StatefulSet":
			sts = doc
		}
		for _, c := range containersOf(doc) {
			containers++
			args := strs(dig(c, "args"))
			checkArgs(t, doc["kind"].(string)+" "+dig(doc, "metadata", "name").(string), args)
			if !strings.Contains(strings.Join(args, " "), "--key-file=/etc/tsys/key") || dig(c, "volumeMounts", 0, "mountPath") != "/etc/tsys" {
				t.Errorf("%s: the key is not read from the mounted Secret", doc["kind"])
			}
		}
	}
	if svc == nil || sts == nil || containers < 2 {
		t.Fatalf("want a Service, a StatefulSet and a Job: got service %v, statefulset %v, %d containers", svc != nil, sts != nil, containers)
	}
	if dig(svc, "spec", "clusterIP") != "None" || dig(sts, "spec", "serviceName") != dig(svc, "metadata", "name") {
		t.Error("the StatefulSet is not behind a headless Service")
	}
	seed := dig(sts, "metadata", "name").(string) + "-0." + dig(svc, "metadata", "name").(string) + ":7946"
	c := dig(sts, "spec", "template", "spec", "containers", 0)
	args := strings.Join(strs(dig(c, "args")), " ")
	for _, want := range []string{"--join=" + seed, "--bind=0.0.0.0:7946", "--advertise=$(POD_IP)", "--http=0.0.0.0:8080"} {
		if !strings.Contains(args, want) {
			t.Errorf("the nodes' arguments lack %s: %s", want, args)
		}
	}
	if dig(c, "readinessProbe", "httpGet", "path") != "/healthz" || dig(c, "readinessProbe", "httpGet", "port") != "http" {
		t.Error("readiness is not the node's /healthz")
	}
	ports := map[string]int{}
	for _, p := range dig(c, "ports").([]any) {
		ports[dig(p, "name").(string)] = dig(p, "containerPort").(int)
	}
	if ports["http"] != 8080 || ports["tasks"] != 7947 || ports["gossip-udp"] != 7946 {
		t.Errorf("container ports %v do not match --http, --task-port and --bind", ports)
	}
}

// containersOf returns a workload's containers (StatefulSet, Job).
func containersOf(doc map[string]any) []any {
	c, _ := dig(doc, "spec", "template", "spec", "containers").([]any)
	return c
}

// TestPrometheusConfig: deploy/prometheus.yml parses, sends the token as a
// bearer token, and keeps the endpoints of the manifests' Service on the
// port they name http.
func TestPrometheusConfig(t *testing.T) {
	b, err := os.ReadFile("../../deploy/prometheus.yml")
	if err != nil {
		t.Fatal(err)
	}
	var cfg map[string]any
	if err := yaml.Unmarshal(b, &cfg); err != nil {
		t.Fatalf("deploy/prometheus.yml does not parse: %v", err)
	}
	jobs, _ := cfg["scrape_configs"].([]any)
	if len(jobs) != 2 {
		t.Fatalf("%d scrape configs, want 2", len(jobs))
	}
	for _, j := range jobs {
		if dig(j, "authorization", "type") != "Bearer" || dig(j, "authorization", "credentials_file") == nil {
			t.Errorf("scrape config %v sends no bearer token", dig(j, "job_name"))
		}
	}
	var svc string
	for _, doc := range manifests(t) {
		if doc["kind"] == "Service" {
			svc = dig(doc, "metadata", "name").(string)
		}
	}
	if keep := dig(jobs[1], "relabel_configs", 0, "regex"); keep != svc+";http" {
		t.Errorf("the Kubernetes scrape keeps %v, want the Service %s's port http", keep, svc)
	}
}

// TestDockerfile: the image's default command is a node whose flags exist,
// run from where the binary was copied.
func TestDockerfile(t *testing.T) {
	b, err := os.ReadFile("../../deploy/Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	var entry, cmd []string
	copied := ""
	for _, line := range strings.Split(string(b), "\n") {
		switch {
		case strings.HasPrefix(line, "ENTRYPOINT "):
			json.Unmarshal([]byte(strings.TrimPrefix(line, "ENTRYPOINT ")), &entry)
		case strings.HasPrefix(line, "CMD "):
			json.Unmarshal([]byte(strings.TrimPrefix(line, "CMD ")), &cmd)
		case strings.HasPrefix(line, "COPY --from=build "):
			f := strings.Fields(line)
			copied = f[len(f)-1]
		}
	}
	if len(entry) != 1 || entry[0] != copied {
		t.Errorf("ENTRYPOINT %v does not run the binary copied to %s", entry, copied)
	}
	checkArgs(t, "Dockerfile CMD", cmd)
}
