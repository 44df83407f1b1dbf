// Package xorshift is the random generator the schedulers pick victims
// with: the node's workers choosing whom to steal from, and the cluster
// policies choosing whom to ask. Victim choice needs speed and an even
// spread, not unpredictability; a seeded generator also keeps a policy
// that is fed the same events giving the same actions, which tests and the
// simulator rely on.
package xorshift
