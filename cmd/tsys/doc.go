// Command tsys runs the tsys apps on one machine or a cluster, serves as a
// cluster node, and benchmarks schedulers. It is package cli's command
// line, the one any tsys program has, with the apps of package apps as
// its programs and two verbs of its own:
//
//	tsys run APP [app flags] [common flags]
//	tsys node [--bind HOST:PORT] [--join HOST:PORT,...] [--workers W] [--zone Z] [--key-file F]
//	tsys drain [flags] ADDR
//	tsys jobs [flags] ADDR
//	tsys token --key-file F
//	tsys bench [flags]
//	tsys sim [flags]
//	tsys hog [--cpu N] F[:ON/OFF]
//	tsys version
//
// tsys help says what each does.
//
// Exit codes: 0 success; 1 the job failed (the message says why); 2 bad
// usage (unknown command, app, flag or value).
package main
