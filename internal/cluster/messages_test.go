package cluster

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tsys-go/tsys/internal/buildinfo"
	"github.com/tsys-go/tsys/internal/clusterpolicy"
	"github.com/tsys-go/tsys/internal/net/transport"
	"github.com/tsys-go/tsys/internal/wire"
)

// sampleMessages holds one message of every type, with every field set.
func sampleMessages() []message {
	return []message{
		&stealRequest{Job: 3, ID: 77, Want: 8, ReplyTo: "10.0.0.2:7001"},
		&stealReply{Job: 3, ID: 77, Tasks: []taskRecord{{ID: 1 << 40, Kind: "fib", Arg: []byte{30}, Span: 3 * time.Millisecond}, {ID: 2, Kind: "fib"}, {ID: 3, Kind: "rt.render", Arg: []byte("tile")}}, ReplyTo: "127.0.0.1:4000"},
		&stealReply{Job: 3},
		&result{Job: 3, Task: 1 << 40, Value: []byte{0x81, 0x02}, Span: 1<<62 + 5},
		&result{Job: 3, Task: 9, Err: `node n2 has no task named "x"`, Rerun: true},
		&jobStart{Job: 9, ReplyTo: "127.0.0.1:40000", MeasureWorkSpan: true, TimelineCap: 1000, Began: 1_700_000_000_000_000_000, MinNodes: 2, MaxNodes: 1<<32 - 1, Tasks: []string{"fib", "sort.merge"}, Binary: "sort (example.com/sort rev 1a2b3c4d5e6f)"},
		&jobStart{Job: 9, ReplyTo: "127.0.0.1:40000", Tasks: []string{"fib", "sort.merge"}, Binary: "sort (example.com/sort)",
			Printed: true, Prints: []taskPrint{{Types: "func(int) int", Hash: 1 << 63}, {Types: "func([]int) []int", Hash: 7}},
			Build:        buildinfo.Build{Path: "example.com/sort", Version: "(devel)", Revision: "1a2b", Modified: true, Flags: "-tags=x", ID: "a/b/c/d", Go: "go1.26.8"},
			AcceptBuilds: true},
		&jobStart{Job: 9, Printed: true},
		&jobEnd{Job: 9, SentAt: 1_700_000_000_000_000_000},
		&jobReport{Job: 9, Report: []byte(`{"node":"n2"}`), Timeline: []byte(`{"node":"n2"}`)},
		&clockReading{Job: 9, EndSentAt: 1, EndAt: -2, At: 3},
		&jobFailed{Job: 9, Err: "task panicked"},
		&shutdown{},
		&shutdown{Status: 1, Reason: "uts: wrong answer"},
		&loadReport{Job: 9, Load: clusterpolicy.Load{Ready: 12, Workers: 2, Idle: 1, Rate: 1.75, Busy: 1.9, TaskTime: 42 * time.Microsecond}},
		&result{Job: 3, Task: 10, Err: "node n2 is leaving the cluster", Rerun: true, Leaving: true},
		&drainRequest{ReplyTo: "127.0.0.1:4001", Timeout: time.Minute},
		&drained{Err: "node n2 is still running 3 borrowed tasks", Returned: 4, Finished: 1 << 40},
		&statsRequest{ID: 7, ReplyTo: "127.0.0.1:4002", All: true},
		&statsRequest{ID: 8, ReplyTo: "127.0.0.1:4002", Stream: 10 * time.Second, StreamRes: 10 * time.Millisecond},
		&statsReply{ID: 7, Snapshots: []byte(`[{"node":"n2"}]`)},
		&jobRefused{Job: 9, Reason: "node n2 serves job 5 of n1; it serves one job at a time"},
		&jobRefused{Job: 9, Reason: "node n2 runs tsys", Lacks: []string{"sort.merge"}},
		&jobRefused{Job: 9, Reason: "node n2 runs another build", OtherBuild: true},
		&leaving{},
		&jobPresence{Job: 9, Active: true},
		&loanQuery{Job: 9, IDs: []uint64{1, 1 << 40}, ReplyTo: "127.0.0.1:4003"},
		&loanStatus{Job: 9, Held: []uint64{1}, Gone: []uint64{1 << 40, 3}},
		&loanStatus{Job: 9},
		&jobAsk{Job: 9, ReplyTo: "127.0.0.1:4004"},
		&stealRequest{Job: 3, ID: 78, Want: 8, ReplyTo: "10.0.0.2:7001", Lifeline: true},
		&results{Job: 3, Results: []result{{Job: 3, Task: 1 << 40, Value: []byte{0x81, 0x02}, Span: 1<<62 + 5}, {Job: 3, Task: 9, Err: "cannot encode", Rerun: true}, {Job: 3, Task: 11}}},
	}
}

// TestMessagesRoundTrip: every message decodes to itself, any strict
// prefix of its body and any byte more are refused, and the transport
// carries its type.
func TestMessagesRoundTrip(t *testing.T) {
	for _, m := range sampleMessages() {
		tm := encodeMessage(m)
		if tm.Type < transport.FirstUserType {
			t.Fatalf("%T has the transport's type %v", m, tm.Type)
		}
		got, err := decodeMessage(tm)
		if err != nil || !reflect.DeepEqual(got, m) {
			t.Fatalf("%T: decoded %+v, %v; want %+v", m, got, err, m)
		}
		// A message that may end early is what an older build sent:
		// that prefix decodes, as the older message.
		older := olderForm(got)
		for i := range tm.Body {
			short, err := decodeMessage(&transport.Message{Type: tm.Type, Body: tm.Body[:i]})
			if older != nil && err == nil && reflect.DeepEqual(short, older) {
				continue
			}
			if !errors.Is(err, wire.ErrMalformed) {
				t.Fatalf("%T: prefix %d of %d: %v", m, i, len(tm.Body), err)
			}
		}
		longer := append(bytes.Clone(tm.Body), 0)
		if _, err := decodeMessage(&transport.Message{Type: tm.Type, Body: longer}); !errors.Is(err, wire.ErrMalformed) {
			t.Fatalf("%T with a byte more: %v", m, err)
		}
	}
}

// olderForm is m as an older build sent it, when m's encoding has an
// optional tail; nil when it has none.
func olderForm(m message) message {
	switch m := m.(type) {
	case *jobStart:
		if m.Printed {
			old := *m
			old.Printed, old.Prints, old.Build, old.AcceptBuilds = false, nil, buildinfo.Build{}, false
			return &old
		}
	case *statsRequest:
		if m.Stream > 0 {
			old := *m
			old.Stream, old.StreamRes = 0, 0
			return &old
		}
	case *jobRefused:
		if m.OtherBuild {
			old := *m
			old.OtherBuild = false
			return &old
		}
	case *stealRequest:
		if m.Lifeline {
			old := *m
			old.Lifeline = false
			return &old
		}
	}
	return nil
}

// longBuildID is an old-format start followed by a build whose ID is
// long, as no node sends it (appendBuild cuts it).
func longBuildID(start []byte, long string) []byte {
	b := slices.Clone(start)
	for range 3 {
		b = wire.AppendString(b, "")
	}
	b = wire.AppendBool(b, false)
	b = wire.AppendString(b, "")
	return wire.AppendString(b, long)
}

// TestMessageLimits: what a peer cannot make this node do.
func TestMessageLimits(t *testing.T) {
	long := strings.Repeat("k", maxStringLen+1)
	many := wire.AppendUvarint(wire.AppendUvarint(wire.AppendUvarint(nil, 1), 2), maxTasks+1)
	// A jobStart up to its list of task names: its last two bytes are
	// the list's length and the binary's, both 0.
	start := encodeMessage(&jobStart{}).Body
	noTasks := slices.Clone(start[:len(start)-2])
	cases := map[string]*transport.Message{
		"unknown type":          {Type: msgClock + 1},
		"NaN rate":              encodeMessage(&loadReport{Load: clusterpolicy.Load{Rate: math.NaN()}}),
		"negative rate":         encodeMessage(&loadReport{Load: clusterpolicy.Load{Rate: -1}}),
		"huge ready count":      {Type: msgLoadReport, Body: wire.AppendUvarint([]byte{1}, 1<<40)},
		"long address":          encodeMessage(&stealRequest{ReplyTo: long}),
		"long task name":        encodeMessage(&stealReply{Tasks: []taskRecord{{Kind: long}}}),
		"too many tasks":        {Type: msgStealReply, Body: many},
		"tasks announced":       {Type: msgStealReply, Body: wire.AppendUvarint([]byte{1, 2}, 1000)},
		"long lender address":   encodeMessage(&stealReply{ReplyTo: long}),
		"want overflows":        {Type: msgStealRequest, Body: wire.AppendVarint([]byte{1, 2}, 1<<40)},
		"rerun flag not 0 or 1": {Type: msgResult, Body: []byte{1, 2, 0, 0, 7}},
		"huge timeline cap":     encodeMessage(&jobStart{TimelineCap: maxTimelineCap + 1}),
		"node count over 32 bits": {Type: msgJobStart, Body: wire.AppendUvarint(wire.AppendVarint(
			wire.AppendUvarint(wire.AppendBool(wire.AppendString(wire.AppendUvarint(nil, 9), ""), false), 0), 1), 1<<33)},
		"span clock overflows":          {Type: msgResult, Body: wire.AppendUvarint([]byte{1, 2, 0, 0, 0}, 1<<63)},
		"long name in a job's tasks":    encodeMessage(&jobStart{Tasks: []string{long}}),
		"too many task names":           {Type: msgJobStart, Body: wire.AppendUvarint(noTasks, maxKinds+1)},
		"task names announced":          {Type: msgJobStart, Body: wire.AppendUvarint(noTasks, 1000)},
		"long name a node lacks":        encodeMessage(&jobRefused{Lacks: []string{long}}),
		"fewer fingerprints than tasks": encodeMessage(&jobStart{Tasks: []string{"a", "b"}, Printed: true, Prints: []taskPrint{{Hash: 1}}}),
		"more fingerprints than tasks":  encodeMessage(&jobStart{Printed: true, Prints: []taskPrint{{Hash: 1}}}),
		"fingerprints announced":        {Type: msgJobStart, Body: wire.AppendUvarint(slices.Clone(encodeMessage(&jobStart{Printed: true}).Body[:len(encodeMessage(&jobStart{Printed: true}).Body)-1]), 1000)},
		"long build ID":                 {Type: msgJobStart, Body: longBuildID(start, long)},
		"other build flag sent false":   {Type: msgJobRefused, Body: wire.AppendBool(encodeMessage(&jobRefused{Job: 1}).Body, false)},
	}
	for name, tm := range cases {
		if _, err := decodeMessage(tm); !errors.Is(err, wire.ErrMalformed) {
			t.Errorf("%s: %v, want a malformed-message error", name, err)
		}
	}
	// A binary's long name, and a list of too many task names, are cut
	// when sent, so that the job still starts.
	names := make([]string, maxKinds+5)
	for i := range names {
		names[i] = "t"
	}
	js, err := decodeMessage(encodeMessage(&jobStart{Binary: long, Tasks: names}))
	if err != nil || len(js.(*jobStart).Binary) > maxStringLen || len(js.(*jobStart).Tasks) != maxKinds {
		t.Fatalf("a long binary name and %d task names: %v", len(names), err)
	}
	// A fingerprint's long description and a build's long ID are cut
	// when sent; the hash, which nodes compare, is whole.
	ps, err := decodeMessage(encodeMessage(&jobStart{Tasks: []string{"t"}, Printed: true,
		Prints: []taskPrint{{Types: long, Hash: 42}}, Build: buildinfo.Build{ID: long}}))
	if err != nil || len(ps.(*jobStart).Prints[0].Types) > maxStringLen || ps.(*jobStart).Prints[0].Hash != 42 || len(ps.(*jobStart).Build.ID) > maxStringLen {
		t.Fatalf("a long description and build ID: %v", err)
	}
	jr, err := decodeMessage(encodeMessage(&jobRefused{Lacks: names}))
	if err != nil || len(jr.(*jobRefused).Lacks) != maxKinds {
		t.Fatalf("a refusal lacking %d tasks: %v", len(names), err)
	}
	// Long error texts are cut when sent, at a rune boundary.
	m, err := decodeMessage(encodeMessage(&jobFailed{Err: strings.Repeat("€", maxErrLen)}))
	if err != nil || len(m.(*jobFailed).Err) > maxErrLen || !strings.HasSuffix(m.(*jobFailed).Err, "€") {
		t.Fatalf("a long error text: %v", err)
	}
}

// FuzzDecodeMessage: nothing a peer sends makes decoding panic, and what
// decodes encodes back to the same bytes.
func FuzzDecodeMessage(f *testing.F) {
	for _, m := range sampleMessages() {
		tm := encodeMessage(m)
		f.Add(byte(tm.Type), tm.Body)
	}
	f.Add(byte(msgStealReply), []byte{1, 2, 0x80, 0x80, 0x04})
	f.Fuzz(func(t *testing.T, typ byte, body []byte) {
		m, err := decodeMessage(&transport.Message{Type: transport.MsgType(typ), Body: body})
		if err != nil {
			if !errors.Is(err, wire.ErrMalformed) {
				t.Fatalf("error does not wrap ErrMalformed: %v", err)
			}
			return
		}
		again, err := decodeMessage(encodeMessage(m))
		if err != nil || !reflect.DeepEqual(again, m) {
			t.Fatalf("re-encoding does not round trip: %+v, %v", again, err)
		}
	})
}

// BenchmarkDecodeStealReply: a reply lending 16 tasks of one kind, as a
// thief decodes it.
func BenchmarkDecodeStealReply(b *testing.B) {
	r := &stealReply{Job: 7, ID: 1000}
	for i := range 16 {
		r.Tasks = append(r.Tasks, taskRecord{ID: 1<<40 + uint64(i), Kind: "uts.search", Arg: make([]byte, 60)})
	}
	tm := encodeMessage(r)
	b.ReportAllocs()
	b.SetBytes(int64(len(tm.Body)))
	for b.Loop() {
		if _, err := decodeMessage(tm); err != nil {
			b.Fatal(err)
		}
	}
}

// TestVocabularyOrder: the table decodeMessage and the inbox use makes
// each type's own message, names each differently, and has a handler for
// each.
func TestVocabularyOrder(t *testing.T) {
	names := map[string]bool{}
	for i, v := range vocabulary {
		if got, want := v.make().msgType(), msgStealRequest+transport.MsgType(i); got != want {
			t.Errorf("vocabulary[%d] makes a message of type %d, want %d", i, got, want)
		}
		if names[v.name] || v.name == "" {
			t.Errorf("vocabulary[%d] is named %q twice or not at all", i, v.name)
		}
		names[v.name] = true
		if v.handle == nil {
			t.Errorf("vocabulary[%d] (%s) has no handler", i, v.name)
		}
	}
}

// TestRandomMessagesRoundTrip: random messages of every type of the
// vocabulary, each field given a value a decoder could read
// (wire.Generator walking the type's fields), encode and decode to
// themselves, and encode again to the same bytes. In a few hundred of
// each type every field takes a value other than its zero, so that a
// field its description leaves out is found.
func TestRandomMessagesRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(48, 2))
	const each = 300
	for _, v := range vocabulary {
		set := map[string]bool{}
		kept := 0
		for tries := 0; kept < each && tries < 100*each; tries++ {
			m := v.make()
			c := wire.Generator(r)
			if m.fields(&c); c.Err() != nil {
				continue // a value a decoder refuses: a negative rate, fingerprints for other tasks
			}
			kept++
			tm := encodeMessage(m)
			got, err := decodeMessage(tm)
			if err != nil || !reflect.DeepEqual(got, m) {
				t.Fatalf("%s: %+v decoded to %+v, %v", v.name, m, got, err)
			}
			if again := encodeMessage(got); !bytes.Equal(again.Body, tm.Body) {
				t.Fatalf("%s: %+v encoded to %x, then to %x", v.name, m, tm.Body, again.Body)
			}
			fieldsSet(reflect.ValueOf(m).Elem(), "", set)
		}
		if kept < each {
			t.Errorf("%s: %d random messages the decoder takes, want %d", v.name, kept, each)
		}
		for _, f := range fieldPaths(reflect.TypeOf(v.make()).Elem(), "") {
			if !set[f] {
				t.Errorf("%s: field %s is never set: is it left out of its fields?", v.name, f)
			}
		}
	}
}

// fieldPaths names the fields of a message type, down to those that are
// not structs: a list of structs by its elements' fields (Tasks[].Kind).
func fieldPaths(typ reflect.Type, prefix string) []string {
	var out []string
	for f := range typ.Fields() {
		path := prefix + f.Name
		switch {
		case f.Type.Kind() == reflect.Struct:
			out = append(out, fieldPaths(f.Type, path+".")...)
		case f.Type.Kind() == reflect.Slice && f.Type.Elem().Kind() == reflect.Struct:
			out = append(out, fieldPaths(f.Type.Elem(), path+"[].")...)
		default:
			out = append(out, path)
		}
	}
	return out
}

// fieldsSet adds to set the paths (fieldPaths) of v's fields that are
// not zero.
func fieldsSet(v reflect.Value, prefix string, set map[string]bool) {
	for i := range v.NumField() {
		f, path := v.Field(i), prefix+v.Type().Field(i).Name
		switch {
		case f.Kind() == reflect.Struct:
			fieldsSet(f, path+".", set)
		case f.Kind() == reflect.Slice && f.Type().Elem().Kind() == reflect.Struct:
			for j := range f.Len() {
				fieldsSet(f.Index(j), path+"[].", set)
			}
		case !f.IsZero():
			set[path] = true
		}
	}
}

// TestReplyToIsTrusted: every message with a reply address hands it to
// trustReplyTo (replyto.go), which replaces it before anything reads it.
func TestReplyToIsTrusted(t *testing.T) {
	for _, v := range vocabulary {
		m := v.make()
		f := reflect.ValueOf(m).Elem().FieldByName("ReplyTo")
		if !f.IsValid() {
			continue
		}
		r, ok := m.(replyAddressed)
		if !ok || r.replyAddr() != f.Addr().Interface().(*string) {
			t.Errorf("%s has a ReplyTo that trustReplyTo does not replace", v.name)
		}
	}
}
