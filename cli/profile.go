package cli

import (
	"fmt"
	"os"

	"github.com/pkg/profile"
)

// startProfile starts the pprof profile that --profile names, written
// into dir; stop writes it out.
func startProfile(kind, dir string) (stop func(), err error) {
	if kind == "" {
		return func() {}, nil
	}
	modes := map[string]func(*profile.Profile){
		"cpu":   profile.CPUProfile,
		"mem":   profile.MemProfile,
		"block": profile.BlockProfile,
		"mutex": profile.MutexProfile,
		"trace": profile.TraceProfile,
	}
	mode, ok := modes[kind]
	if !ok {
		return nil, Usagef("--profile %q: want cpu, mem, block, mutex or trace", kind)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, Usagef("--profile-dir %s: %v: give a folder you may write, or one to make where you may", dir, err)
	}
	p := profile.Start(mode, profile.ProfilePath(dir), profile.Quiet, profile.NoShutdownHook)
	return func() {
		p.Stop()
		fmt.Fprintf(os.Stderr, "tsys: %s profile written to %s\n", kind, dir)
	}, nil
}
