package main

import (
	"archive/tar"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// extractBaseline writes the sources of commit into dir, as git archive
// gives them: the release's tree, whatever the working tree holds.
func extractBaseline(repo, commit, dir string) error {
	if err := haveCommit(repo, commit); err != nil {
		return err
	}
	cmd := exec.Command("git", "archive", "--format=tar", commit)
	cmd.Dir = repo
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("git archive %s: %w", commit, err)
	}
	untarErr := untar(out, dir)
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("git archive %s: %w: %s", commit, err, strings.TrimSpace(stderr.String()))
	}
	return untarErr
}

// haveCommit fails, saying how to fix it, when the clone lacks the
// baseline: a shallow clone, as some CI checkouts make, has no history.
func haveCommit(repo, commit string) error {
	cmd := exec.Command("git", "cat-file", "-e", commit+"^{commit}")
	cmd.Dir = repo
	if cmd.Run() == nil {
		return nil
	}
	shallow := exec.Command("git", "rev-parse", "--is-shallow-repository")
	shallow.Dir = repo
	if out, err := shallow.Output(); err == nil && strings.TrimSpace(string(out)) == "true" {
		return fmt.Errorf("commit %s, which CHANGELOG.md's newest release names, is not in this shallow clone: run `git fetch --unshallow` (or clone without --depth) and check again", commit)
	}
	if _, err := exec.LookPath("git"); err != nil {
		return fmt.Errorf("the check reads the release's sources with git, which is not on PATH: install git")
	}
	return fmt.Errorf("commit %s, which CHANGELOG.md's newest release names, is not in the repository at %s: fetch it (`git fetch origin`), or correct the heading if the commit is wrong", commit, repo)
}

// untar writes a tar stream's regular files under dir; git archive's
// paths are relative and clean, and any other is refused.
func untar(r io.Reader, dir string) error {
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("reading git archive's output: %w", err)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		if !filepath.IsLocal(h.Name) {
			return fmt.Errorf("git archive gave a path outside the tree: %q", h.Name)
		}
		if err := writeFile(filepath.Join(dir, h.Name), tr); err != nil {
			return err
		}
	}
}

func writeFile(path string, r io.Reader) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
