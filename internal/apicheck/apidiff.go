package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// apidiff runs one pinned build of golang.org/x/exp's apidiff.
type apidiff struct {
	bin string   // the installed binary
	env []string // the environment of every go command it runs
}

// installApidiff builds the pinned apidiff into dir. The first build on a
// machine downloads it through the module proxy; later ones come from the
// module and build caches.
func installApidiff(module, dir string, env []string) (apidiff, error) {
	bin := filepath.Join(dir, "bin")
	cmd := exec.Command("go", "install", module)
	cmd.Env = append(env, "GOBIN="+bin)
	if out, err := cmd.CombinedOutput(); err != nil {
		return apidiff{}, fmt.Errorf("installing %s (the first time needs the Go module proxy): %w\n%s", module, err, out)
	}
	return apidiff{bin: filepath.Join(bin, "apidiff"), env: env}, nil
}

// write saves the API of the package at importPath, as the module in
// moduleDir has it, to file.
func (a apidiff) write(moduleDir, importPath, file string) error {
	_, err := a.run(moduleDir, "-w", file, importPath)
	if err != nil {
		return fmt.Errorf("reading the API of %s at the release: %w", importPath, err)
	}
	return nil
}

// diff compares the API saved in file with the package at importPath in
// moduleDir and returns apidiff's report.
func (a apidiff) diff(moduleDir, importPath, file string) (string, error) {
	out, err := a.run(moduleDir, file, importPath)
	if err != nil {
		return "", fmt.Errorf("comparing the API of %s with the release: %w", importPath, err)
	}
	return out, nil
}

func (a apidiff) run(dir string, args ...string) (string, error) {
	cmd := exec.Command(a.bin, args...)
	cmd.Dir = dir
	cmd.Env = a.env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("apidiff %s: %w: %s%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return stdout.String(), nil
}

// goEnv is the environment the go commands run in: this one, outside any
// go.work, so that the release's sources build as their own module.
func goEnv(extra ...string) []string {
	return append(append(os.Environ(), "GOWORK=off"), extra...)
}
