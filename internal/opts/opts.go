package opts

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Reader holds a list of options and what has been read of it.
type Reader struct {
	what string // "balance" reads as "balance option ..."; "" as "option ..."
	keys []string
	vals map[string]string
	used map[string]bool
	err  error
}

// Parse reads s, a comma-separated list of KEY=VALUE; what names the
// options in errors. An item without '=' is an error.
func Parse(what, s string) (*Reader, error) {
	r := &Reader{what: what, vals: map[string]string{}, used: map[string]bool{}}
	for _, item := range strings.Split(s, ",") {
		if item == "" {
			continue
		}
		k, v, ok := strings.Cut(item, "=")
		if !ok {
			return nil, fmt.Errorf("%s %q: want KEY=VALUE", r.label(), item)
		}
		if _, dup := r.vals[k]; !dup {
			r.keys = append(r.keys, k)
		}
		r.vals[k] = v
	}
	return r, nil
}

func (r *Reader) label() string {
	if r.what == "" {
		return "option"
	}
	return r.what + " option"
}

// Fail records why key's value is wrong, unless an error came first.
func (r *Reader) Fail(key, why string) {
	if r.err == nil {
		r.err = fmt.Errorf("%s %s=%q: %s", r.label(), key, r.vals[key], why)
	}
}

// Failed reports whether a value was wrong so far.
func (r *Reader) Failed() bool { return r.err != nil }

func (r *Reader) take(key string) (string, bool) {
	r.used[key] = true
	v, ok := r.vals[key]
	return v, ok
}

// String is key's value, or def.
func (r *Reader) String(key, def string) string {
	if v, ok := r.take(key); ok {
		return v
	}
	return def
}

// Int is key's value, a whole number of at least 1, or def.
func (r *Reader) Int(key string, def int64) int64 {
	v, ok := r.take(key)
	if !ok {
		return def
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 1 {
		r.Fail(key, "want a whole number of at least 1")
		return def
	}
	return n
}

// IntUpTo is key's value, a whole number from 1 to most, or def: for a
// value that becomes a narrower type or has a real limit, so that it is
// refused rather than wrapped or clipped where it is used.
func (r *Reader) IntUpTo(key string, def, most int64) int64 {
	v, ok := r.take(key)
	if !ok {
		return def
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 1 || n > most {
		r.Fail(key, fmt.Sprintf("want a whole number from 1 to %d", most))
		return def
	}
	return n
}

// Float is key's value, a number of at least 0 (above 0 when positive is
// set, hint then saying what is wanted), or def.
func (r *Reader) Float(key string, def float64, positive bool, hint string) float64 {
	v, ok := r.take(key)
	if !ok {
		return def
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || f < 0 || (positive && f == 0) {
		r.Fail(key, hint)
		return def
	}
	return f
}

// Duration is key's value, a positive Go duration ("100us"), or def; hint
// says what is wanted when it is not one.
func (r *Reader) Duration(key string, def time.Duration, hint string) time.Duration {
	v, ok := r.take(key)
	if !ok {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		r.Fail(key, hint)
		return def
	}
	return d
}

// Err is the first bad value, or else the first option that was never
// read, naming what is wanted instead (known).
func (r *Reader) Err(known string) error {
	if r.err != nil {
		return r.err
	}
	for _, k := range r.keys {
		if !r.used[k] {
			return fmt.Errorf("unknown %s %q: want %s", r.label(), k+"="+r.vals[k], known)
		}
	}
	return nil
}
