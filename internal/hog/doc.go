// Package hog makes competing CPU load beside a node's workers, so that
// schedulers can be compared on nodes that are slower or loaded: Siegell and
// Steenkiste's test scenarios (1997), a
// competing process that is absent, constant, or on and off with a period.
// Pin the node to one core (Pin) so that the hog and the workers share it.
package hog
