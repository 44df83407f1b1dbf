package main

import (
	"fmt"
	"regexp"
	"strings"
)

// changelog is what the check reads from CHANGELOG.md: the commit of the
// newest release, whose API is the baseline, and the bullets of the
// Unreleased section, which must name every change since.
type changelog struct {
	Baseline string   // a commit, as the release's heading names it
	Heading  string   // that heading, for messages
	Bullets  []string // the Unreleased section's bullets, each one string
}

var (
	unreleasedHeading = regexp.MustCompile(`(?i)^##\s+unreleased\s*$`)
	releaseCommit     = regexp.MustCompile(`\bcommit\s+([0-9a-f]{7,40})\b`)
	bulletStart       = regexp.MustCompile(`^\s*[-*]\s+`)
)

// parseChangelog reads the Unreleased section and the first release
// heading after it. The file's own header says how they are written, so
// an error here quotes that form.
func parseChangelog(text string) (changelog, error) {
	var cl changelog
	lines := strings.Split(text, "\n")
	start := -1
	for i, l := range lines {
		if unreleasedHeading.MatchString(strings.TrimSpace(l)) {
			start = i
			break
		}
	}
	if start < 0 {
		return cl, fmt.Errorf("CHANGELOG.md has no %q section: add one above the newest release", "## Unreleased")
	}
	end := len(lines)
	for i := start + 1; i < len(lines); i++ {
		if strings.HasPrefix(lines[i], "## ") {
			end = i
			break
		}
	}
	cl.Bullets = bullets(lines[start+1 : end])
	for _, l := range lines[end:] {
		if !strings.HasPrefix(l, "## ") {
			continue
		}
		m := releaseCommit.FindStringSubmatch(l)
		if m == nil {
			return cl, fmt.Errorf("CHANGELOG.md: the newest release's heading %q names no commit: write it as %q", l, "## vX.Y.Z (date, commit abc1234)")
		}
		cl.Baseline, cl.Heading = m[1], strings.TrimSpace(l)
		return cl, nil
	}
	return cl, fmt.Errorf("CHANGELOG.md has no release below %q to compare with: add %q naming the commit whose API it records", "## Unreleased", "## vX.Y.Z (date, commit abc1234)")
}

// bullets joins each list item with its continuation lines, so that a
// name wrapped onto the next line still counts as named.
func bullets(lines []string) []string {
	var out []string
	open := false
	for _, l := range lines {
		switch {
		case bulletStart.MatchString(l):
			out = append(out, strings.TrimSpace(bulletStart.ReplaceAllString(l, "")))
			open = true
		case strings.TrimSpace(l) == "" || strings.HasPrefix(l, "#"):
			open = false
		case open:
			out[len(out)-1] += " " + strings.TrimSpace(l)
		}
	}
	return out
}
