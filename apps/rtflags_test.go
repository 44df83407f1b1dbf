package apps_test

import (
	"strings"
	"testing"

	"github.com/tsys-go/tsys/apps"
)

// TestRtIntegerFlagsDoNotWrap: rt's integer flags are range-checked as
// the ints they were parsed into, before they become rt.Job's int32s, so
// a value past 32 bits is refused with the range, never rendered as what
// it wraps to (-w 4294967396 once rendered 100 pixels wide).
func TestRtIntegerFlagsDoNotWrap(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-w", "4294967396"}, "-w 4294967396: want 1 to 16384 pixels of width"},
		{[]string{"-h", "4294967297"}, "-h 4294967297: want 1 to 16384 pixels of height"},
		{[]string{"--samples", "4294967298"}, "--samples 4294967298: want 1 to 16"},
		{[]string{"--depth", "4294967299"}, "--depth 4294967299: want 0 to 16"},
		{[]string{"--level", "4294967297"}, "--level 4294967297: want"},
		{[]string{"-w", "-4294967196"}, "-w -4294967196: want 1 to 16384"},
		{[]string{"-w", "0"}, "-w 0: want 1 to 16384"},
	} {
		_, err := apps.ParseJob("rt", c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("rt %v: %v; want an error saying %q", c.args, err, c.want)
		}
	}
	j, err := apps.ParseJob("rt", "-w", "16384", "-h", "1", "--samples", "16", "--depth", "0")
	if err != nil {
		t.Fatalf("rt at the edges of its ranges: %v", err)
	}
	if p := j.Params(); p["w"] != int32(16384) || p["h"] != int32(1) || p["samples"] != int32(16) || p["depth"] != int32(0) {
		t.Errorf("rt at the edges: params %v", p)
	}
}
