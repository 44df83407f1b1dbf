// Package wire holds the few encoding primitives that tsys's wire formats
// share: the transport's frames and handshake, and the cluster's message
// vocabulary. Numbers are (zigzag) varints, strings and byte fields are
// length-prefixed. A Decoder never panics and never allocates more than its
// input justifies: every length is checked against the bytes left and a
// limit before anything is made, because the input comes from the network.
//
// A Codec walks a message's fields, to encode it, decode it or fill it
// with random values for a test, so that a message whose fields are
// described once, as one function of a Codec, cannot be encoded one way
// and decoded another (codec.go).
package wire
