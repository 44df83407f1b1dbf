package netem

import (
	"fmt"
	"os"
	"runtime"

	"golang.org/x/sys/unix"
)

// OpenTUN attaches to TUN device dev in network namespace netns (a name
// under /var/run/netns, as `ip netns add` makes them) and returns it, to
// be a Port's device: its reads are the IP packets the namespace sends
// into it (no packet information header), its writes packets it
// receives. The device must exist (`ip -n NETNS tuntap add dev DEV mode
// tun`). A Close ends a read under way.
func OpenTUN(netns, dev string) (*os.File, error) {
	var f *os.File
	err := InNamespace(netns, func() error {
		var err error
		f, err = openTUN(netns, dev)
		return err
	})
	return f, err
}

// InNamespace runs f on a thread of its own inside network namespace
// netns (a name under /var/run/netns): a socket or device f opens stays
// in that namespace, whichever thread uses it later. The thread is never
// used again: a goroutine that ends locked to its thread takes the
// thread with it, so no other goroutine runs in the namespace.
func InNamespace(netns string, f func() error) error {
	ch := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		nsf, err := os.Open("/var/run/netns/" + netns)
		if err != nil {
			ch <- fmt.Errorf("netem: network namespace %s: %w", netns, err)
			return
		}
		defer nsf.Close()
		if err := unix.Setns(int(nsf.Fd()), unix.CLONE_NEWNET); err != nil {
			ch <- fmt.Errorf("netem: entering network namespace %s: %w", netns, err)
			return
		}
		ch <- f()
	}()
	return <-ch
}

// openTUN is OpenTUN's work, inside the namespace.
func openTUN(netns, dev string) (*os.File, error) {
	fd, err := unix.Open("/dev/net/tun", unix.O_RDWR|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("netem: /dev/net/tun: %w", err)
	}
	ifr, err := unix.NewIfreq(dev)
	if err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("netem: TUN device %q: %w", dev, err)
	}
	ifr.SetUint16(unix.IFF_TUN | unix.IFF_NO_PI)
	if err := unix.IoctlIfreq(fd, unix.TUNSETIFF, ifr); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("netem: attaching to TUN device %s in %s: %w", dev, netns, err)
	}
	// Non-blocking, the file goes through Go's poller, so Close ends a
	// Read under way.
	return os.NewFile(uintptr(fd), "tun "+netns+"/"+dev), nil
}
