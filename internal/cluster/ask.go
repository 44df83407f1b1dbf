package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"time"

	"github.com/tsys-go/tsys/internal/net/transport"
)

// ask sends the node whose task transport listens at addr the request
// that request makes for a reply address, and waits up to wait for its
// answer of type T: how commands talk to a node without joining the
// cluster (tsys drain, tsys jobs). This side listens on bind (default
// 127.0.0.1:0) with key, as the node's transport demands. The node
// answers on the connection the request came on (it dials no address a
// message names), so the reply address sent is only what older builds
// of the node dial.
func ask[T message](ctx context.Context, addr, bind string, key []byte, wait time.Duration, request func(replyTo string) message) (T, error) {
	var zero T
	if bind == "" {
		bind = "127.0.0.1:0"
	}
	answers := make(chan T, 1)
	tr, err := transport.Listen(transport.Config{Name: "tsys-cli", Bind: bind, Key: key, Logger: slog.New(slog.DiscardHandler)},
		func(_ string, tm *transport.Message) {
			if m, err := decodeMessage(tm); err == nil {
				if a, ok := m.(T); ok {
					select {
					case answers <- a:
					default:
					}
				}
			}
		})
	if err != nil {
		return zero, fmt.Errorf("listening for the answer: %w", err)
	}
	defer tr.Close()
	host, port, _ := net.SplitHostPort(tr.Addr())
	if host, err = AdvertisedHost(host, ""); err != nil {
		return zero, err
	}
	if err := tr.SendSync(addr, encodeMessage(request(net.JoinHostPort(host, port)))); err != nil {
		return zero, err
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case a := <-answers:
		return a, nil
	case <-timer.C:
		return zero, fmt.Errorf("no answer within %v", wait)
	case <-ctx.Done():
		return zero, ctx.Err()
	}
}

// RequestCluster asks the node at addr for the snapshots of every member
// it can reach (Node.ClusterSnapshot): what tsys jobs shows. key and bind
// as for RequestDrain.
func RequestCluster(ctx context.Context, addr, bind string, key []byte) ([]Snapshot, error) {
	r, err := ask[*statsReply](ctx, addr, bind, key, gatherTimeout+5*time.Second, func(replyTo string) message {
		return &statsRequest{ReplyTo: replyTo, All: true}
	})
	if err != nil {
		return nil, fmt.Errorf("asking the node at %s for the cluster's state: %w", addr, err)
	}
	var snaps []Snapshot
	if err := json.Unmarshal(r.Snapshots, &snaps); err != nil {
		return nil, fmt.Errorf("the node at %s answered with a state that does not decode: %w", addr, err)
	}
	if len(snaps) == 0 {
		return nil, errors.New("the node sent no state")
	}
	return snaps, nil
}
