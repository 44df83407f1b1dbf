package cputime

import "time"

// Process returns the user and system CPU time the process has used, and
// false where the platform cannot tell.
func Process() (time.Duration, bool) { return process() }
