package launch

import "fmt"

// plain reads the documented form for any other launcher: TSYS_RANK,
// TSYS_SIZE and TSYS_ROOT (rank 0's HOST[:PORT], or a file on a shared
// path).
func plain(env lookup) (*Launch, error) {
	why := "set TSYS_RANK (0 to TSYS_SIZE-1), TSYS_SIZE (the processes) and TSYS_ROOT (rank 0's HOST[:PORT], or a file on a shared path) in each process"
	rank, size, err := env.rankSize("TSYS_RANK", "TSYS_SIZE", why)
	if err != nil {
		return nil, err
	}
	root, ok := env.get("TSYS_ROOT")
	if !ok && size > 1 {
		return nil, fmt.Errorf("TSYS_ROOT is not set: %s", why)
	}
	l := &Launch{Launcher: "TSYS_RANK", Rank: rank, Size: size, Job: "env " + root}
	l.RootPort = Port(hashJob(l.Job), 1)
	return l, nil
}
