package jobid

import (
	"log/slog"
	"strconv"
)

// ID is a job's id, as its root drew it and the messages carry it.
type ID uint64

// String spells the id in hexadecimal, as every place that shows one
// does.
func (id ID) String() string { return strconv.FormatUint(uint64(id), 16) }

// LogValue makes slog write the id as String does.
func (id ID) LogValue() slog.Value { return slog.StringValue(id.String()) }
