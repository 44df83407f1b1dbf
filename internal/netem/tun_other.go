//go:build !linux

package netem

import (
	"errors"
	"os"
)

var errNotLinux = errors.New("netem: network namespaces and TUN devices need Linux")

// OpenTUN needs Linux's network namespaces and TUN devices.
func OpenTUN(netns, dev string) (*os.File, error) { return nil, errNotLinux }

// InNamespace needs Linux's network namespaces.
func InNamespace(netns string, f func() error) error { return errNotLinux }
