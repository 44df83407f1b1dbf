// Package promtest reads a node's /metrics in tests the way Prometheus
// does: with the real text parser, under the legacy naming scheme every
// Prometheus accepts.
package promtest
