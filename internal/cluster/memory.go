package cluster

import (
	"bytes"
	"os"
	"runtime/metrics"
	"strconv"
)

// Memory is a node process's memory when a snapshot was taken, for the
// dashboard's history: the Go heap's live and not yet swept objects, and
// the resident set the kernel counts (0 where it is not known).
type Memory struct {
	HeapBytes int64 `json:"heap_bytes"`
	RSSBytes  int64 `json:"rss_bytes"`
}

// heapMetric is the Go heap's objects: a cheap read (runtime/metrics),
// unlike runtime.ReadMemStats, which stops the world.
const heapMetric = "/memory/classes/heap/objects:bytes"

func readMemory() Memory {
	s := []metrics.Sample{{Name: heapMetric}}
	metrics.Read(s)
	var m Memory
	if s[0].Value.Kind() == metrics.KindUint64 {
		m.HeapBytes = int64(s[0].Value.Uint64())
	}
	m.RSSBytes = residentBytes()
	return m
}

// residentBytes is the process's resident set from /proc/self/statm (its
// second field, in pages), 0 without /proc.
func residentBytes() int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := bytes.Fields(b)
	if len(f) < 2 {
		return 0
	}
	pages, err := strconv.ParseInt(string(f[1]), 10, 64)
	if err != nil {
		return 0
	}
	return pages * int64(os.Getpagesize())
}
