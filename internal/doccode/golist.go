package doccode

import (
	"fmt"
	"os/exec"
	"slices"
	"strings"
)

// goList runs go list with flags over patterns in the module at dir and
// returns what it wrote; its error carries what go list said.
func goList(dir string, flags []string, patterns ...string) ([]byte, error) {
	cmd := exec.Command("go", slices.Concat([]string{"list"}, flags, patterns)...)
	cmd.Dir = dir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list %s: %v: %s", strings.Join(flags, " "), err, stderr.String())
	}
	return out, nil
}
