// Package calibrate measures what tsys's costs are on this machine, for
// the advisor (tsys advise, package advise's models): what a message
// between two nodes costs, what a node's policy tick and gossip take of a
// core, and what a child costs when it is spawned as a task rather than
// called. Each measure runs the real pieces in this process, and none
// depends on getting a core within a short window: the machines tsys runs
// on are shared, so every figure is a median of repeated samples, and
// every wait is bounded by the caller's context and a timeout of seconds.
//
// # Messages: PingPong
//
// Two task transports (package net/transport) on 127.0.0.1, configured as
// cluster.Start configures a node's (with the cluster key, if given, so
// that a keyed cluster is measured on its sealed path), bounce messages of
// several sizes back and forth; the payloads are random bytes, since the
// transport compresses larger frames and a compressible payload would
// measure the compressor. A message's one-way time is half its round
// trip. Fit fits one-way = Startup + PerByte x bytes, by least squares,
// to the medians of the sizes: Startup is Cesar et al.'s start-up cost mo
// and PerByte their cost per byte k (advise.MasterWorker).
//
// Over loopback both are the cost of the software path, the two
// processes' CPU and the kernel's, without a wire: between machines add
// the network's latency to Startup and its time per byte to PerByte.
package calibrate
