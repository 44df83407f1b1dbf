package cli

import (
	"errors"
	"fmt"
	"net"

	"github.com/tsys-go/tsys/internal/net/membership"
	"github.com/tsys-go/tsys/internal/net/transport"
)

// The network can show that the command line was wrong: a --join seed
// whose name does not resolve, or that answers in another protocol (a
// node's task or --http address given for its gossip address); an ADDR
// of drain or jobs that is not a task address; a --key-file that is not
// the cluster's. Those are bad usage (exit 2), as a mistake found in the
// flags is, and their messages say what to give instead: running the
// same command line again would not cure them. A network that fails (a
// connection refused, a timeout, a host unreachable) is a failure (exit
// 1): the same command line may work later.

// inputMistakes are the errors of the network that show a mistake on the
// command line.
var inputMistakes = []error{
	membership.ErrUnresolved, membership.ErrNotGossip, membership.ErrSelfJoin,
	membership.ErrKeyMismatch, membership.ErrNoKey,
	transport.ErrNotTsys, transport.ErrNoKey, transport.ErrKeyMismatch, transport.ErrAuthMode,
}

// asUsage returns err as bad usage when it shows a mistake on the command
// line (inputMistakes, or a host name that does not resolve: --bind's,
// ADDR's), and as it is otherwise.
func asUsage(err error) error {
	for _, m := range inputMistakes {
		if errors.Is(err, m) {
			return usageError{msg: err.Error(), err: err}
		}
	}
	var dns *net.DNSError
	if errors.As(err, &dns) && dns.IsNotFound {
		return usageError{msg: fmt.Sprintf("%v: check the host name %s, or give an IP address", err, dns.Name), err: err}
	}
	return err
}
