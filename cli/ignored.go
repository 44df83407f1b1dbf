package cli

import "flag"

// A flag that the rest of the command line makes do nothing is refused
// (bad usage) rather than ignored: `run fib --serial --nodes 2` ran on
// no node at all and reported one, and whoever reads such a command line
// (or the result it made) believes it did what it says.

// flagRule is a set of flags that do nothing when the rest of the
// command line is as when says: why says what makes them do nothing, and
// instead the other way out than dropping the flag.
type flagRule struct {
	when    bool
	flags   []string
	why     string
	instead string
}

// networkFlags are the flags of a run's own node on the network.
var networkFlags = []string{"bind", "advertise", "task-port", "join-timeout", "probe-interval", "suspicion-mult", "accept-builds", "key-file"}

// serialIgnores are the common flags of run that the plain serial
// version, without the runtime, has no use for.
var serialIgnores = append([]string{"workers", "inline", "sched", "nodes", "join", "min-nodes", "max-nodes", "timeline", "timeline-cap"}, networkFlags...)

// ignoredFlags are the rules of tsys run.
func (c *runConfig) ignoredFlags() []flagRule {
	return []flagRule{
		{c.common.serial, serialIgnores, "with --serial, which runs the plain Go version without the runtime, its workers or other nodes", "drop --serial"},
		{c.common.workspan, []string{"inline"}, "with --workspan, which makes every spawn a task (no inlining)", "drop --workspan"},
		{c.common.timeline == "", []string{"timeline-cap"}, "without --timeline, whose events it bounds", "add --timeline FILE"},
		profileRule(c.common.profile),
		{!c.clustered() && c.common.http == "", networkFlags, "on a run of one node without --http (it listens on no network)", "add --nodes N or --join HOST:PORT"},
		launchRule(c.launch != nil),
	}
}

// launchRule is the rule of the launcher's flags, for run and node
// alike: they place a process a launcher started.
func launchRule(launched bool) flagRule {
	return flagRule{!launched, []string{"launch-root", "launch-network"}, "on a process no launcher started (srun, mpirun, an Indexed Job or TSYS_RANK)", "start one process a rank with srun or mpirun"}
}

// profileRule is the rule of --profile-dir, for run and node alike.
func profileRule(profile string) flagRule {
	return flagRule{profile == "", []string{"profile-dir"}, "without --profile, which writes there", "add --profile cpu (or mem, block, mutex, trace)"}
}

// checkIgnored refuses the first flag given on fs that a rule says does
// nothing, naming the two ways out.
func checkIgnored(fs *flag.FlagSet, rules []flagRule) error {
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	for _, r := range rules {
		if !r.when {
			continue
		}
		for _, name := range r.flags {
			if given[name] {
				return Usagef("--%s does nothing %s: drop --%s, or %s", name, r.why, name, r.instead)
			}
		}
	}
	return nil
}
