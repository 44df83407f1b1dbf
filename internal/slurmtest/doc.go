// Package slurmtest runs a real SLURM cluster for tests: munged,
// slurmctld and one slurmd a node from a generated slurm.conf, all in a
// test's temporary folder, torn down when the test ends. Where the
// machine can make network namespaces, each node is a namespace with an
// address of its own on a bridge, and a hosts file, bind-mounted in a
// mount namespace of the node's own, names the nodes, so that a launched
// process finds its peers from SLURM's node names as on a real cluster;
// elsewhere the nodes share 127.0.0.1, each slurmd on a port of its own,
// and their names do not resolve (tsys then asks SLURM for NodeAddr).
//
// A test is skipped, saying why, where SLURM cannot start (not root, no
// slurmd or munged: Debian's slurm-wlm and munge); where
// TSYS_REQUIRE_SLURM is set (.ci/run installs them) it fails instead. It
// is a test helper: only _test.go files import it (internal/layering).
package slurmtest
