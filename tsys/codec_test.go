package tsys_test

import (
	"testing"

	"github.com/tsys-go/tsys/internal/sched"
	"github.com/tsys-go/tsys/tsys"
)

type point struct{ X, Y int32 }

func TestCodecs(t *testing.T) {
	for _, name := range []string{"fib", "test.producer", "test.sleeper"} {
		k, ok := sched.LookupKind(name)
		if !ok || !k.Lendable() {
			t.Fatalf("%s: not found or not lendable", name)
		}
	}
	// A task taking a future cannot cross nodes.
	if k, _ := sched.LookupKind("test.consumer"); k.Lendable() {
		t.Error("a task whose argument is a Future was made lendable")
	}
	if pointTask.WhyLocal() != nil || bytesTask.WhyLocal() != nil || mapTask.WhyLocal() != nil {
		t.Error("fixed-size, and []byte and gob-able tasks declared ByValue, must be lendable")
	}
	roundTrip(t, "test.point", []byte{1, 0, 0, 0, 2, 0, 0, 0})
	if k, _ := sched.LookupKind("test.point"); true {
		if _, err := k.Codec.NewFromArg([]byte{1, 2, 3}); err == nil {
			t.Error("a truncated argument was accepted")
		}
	}
}

func roundTrip(t *testing.T, name string, arg []byte) {
	t.Helper()
	k, _ := sched.LookupKind(name)
	h, err := k.Codec.NewFromArg(arg)
	if err != nil {
		t.Fatal(err)
	}
	back, err := k.Codec.EncodeArg(h)
	if err != nil || string(back) != string(arg) {
		t.Fatalf("%s: %v, %v", name, back, err)
	}
}

var (
	pointTask *tsys.Task[point, point]
	bytesTask *tsys.Task[[]byte, []byte]
	mapTask   *tsys.Task[map[string]int, int]
)

func init() {
	pointTask = tsys.Register("test.point", func(c *tsys.Ctx, p point) point { return point{p.Y, p.X} })
	bytesTask = tsys.Register("test.bytes", func(c *tsys.Ctx, b []byte) []byte { return b }, tsys.ByValue())
	mapTask = tsys.Register("test.map", func(c *tsys.Ctx, m map[string]int) int { return len(m) }, tsys.ByValue())
}
