package cluster

import (
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/tsys-go/tsys/inline"
	"github.com/tsys-go/tsys/net/transport"
)

// TestUnknownTaskIsSentBack: a peer that lends a task of a kind this node
// does not know (another binary) gets the task back to run itself, with a
// reason, and this node keeps running. The peer is a bare transport on
// real TCP, playing a node of another build.
func TestUnknownTaskIsSentBack(t *testing.T) {
	node, err := Start(Config{
		Workers: 1, Inline: inline.Default(), Fast: true, Logger: slog.New(slog.DiscardHandler),
		Policy: nil, // local: moves no work
	})
	if err != nil {
		t.Fatal(err)
	}
	defer node.Close()

	replies := make(chan transport.Message, 4)
	peer, err := transport.Listen(transport.Config{Name: "other-build", Logger: slog.New(slog.DiscardHandler)},
		func(from string, m *transport.Message) { replies <- *m })
	if err != nil {
		t.Fatal(err)
	}
	defer peer.Close()

	const job = 77
	if err := peer.SendSync(node.TransportAddr(), &transport.Message{Type: transport.MsgJobStart, Job: job, Kind: peer.Addr()}); err != nil {
		t.Fatal(err)
	}
	lend := &transport.Message{Type: transport.MsgStealReply, Job: job, ID: 1, Tasks: []transport.TaskRecord{
		{ID: 41, Kind: "no.such.task", Arg: []byte{1, 2, 3}},
	}}
	if err := peer.SendSync(node.TransportAddr(), lend); err != nil {
		t.Fatal(err)
	}
	select {
	case m := <-replies:
		if m.Type != transport.MsgResult || m.ID != 41 || m.Kind != rerun || !strings.Contains(m.Err, `no task named "no.such.task"`) {
			t.Fatalf("reply %+v: want a rerun Result for task 41 naming the unknown task", m)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no answer to a task of an unknown kind")
	}
	// Still serving: a steal request gets an answer (a refusal: no work).
	if err := peer.SendSync(node.TransportAddr(), &transport.Message{Type: transport.MsgStealRequest, Job: job, ID: 9, Count: 1, Kind: peer.Addr()}); err != nil {
		t.Fatal(err)
	}
	select {
	case m := <-replies:
		if m.Type != transport.MsgStealReply || m.ID != 9 || len(m.Tasks) != 0 {
			t.Fatalf("reply %+v: want an empty StealReply", m)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the node stopped answering after the unknown task")
	}
}
