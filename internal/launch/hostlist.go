package launch

import (
	"fmt"
	"strconv"
	"strings"
)

// maxHosts bounds what one host list may expand to, so that a mistyped
// range (n[1-999999999]) is an error rather than the process's memory.
const maxHosts = 1 << 20

// ExpandHosts expands a SLURM host list, as SLURM_STEP_NODELIST gives
// it, into its host names in order: "n[01-04,07]" is n01 n02 n03 n04
// n07, "rack[1-2]-n[1-3]" is rack1-n1 rack1-n2 rack1-n3 rack2-n1 ...
// (the first bracket varies slowest), "a,b[1-2]" is a b1 b2. A range
// keeps the width of its lower bound (n[08-10]: n08 n09 n10; n[8-10]:
// n8 n9 n10), as scontrol show hostnames does. Names are separated by
// commas outside brackets; empty names are skipped. The order is the
// list's: SLURM places a step's first task on its first host.
func ExpandHosts(list string) ([]string, error) {
	var out []string
	for _, item := range splitTop(list) {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		names, err := expandItem(item, maxHosts-len(out))
		if err != nil {
			return nil, fmt.Errorf("host list %q: %w", list, err)
		}
		out = append(out, names...)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("host list %q names no host", list)
	}
	return out, nil
}

// splitTop splits list at the commas outside brackets; a bracket left
// open keeps the rest in one item, which expandItem refuses.
func splitTop(list string) []string {
	var items []string
	depth, start := 0, 0
	for i, c := range list {
		switch c {
		case '[':
			depth++
		case ']':
			depth--
		case ',':
			if depth == 0 {
				items = append(items, list[start:i])
				start = i + 1
			}
		}
	}
	return append(items, list[start:])
}

// expandItem expands one name with brackets: literal text and bracket
// groups in turn, each group multiplying the names so far; at most
// limit names.
func expandItem(item string, limit int) ([]string, error) {
	names := []string{""}
	for rest := item; rest != ""; {
		open := strings.IndexAny(rest, "[]")
		if open < 0 {
			for i := range names {
				names[i] += rest
			}
			break
		}
		if rest[open] == ']' {
			return nil, fmt.Errorf("%q: a ] without its [", item)
		}
		closing := strings.IndexAny(rest[open+1:], "[]")
		if closing < 0 || rest[open+1+closing] == '[' {
			return nil, fmt.Errorf("%q: a [ without its ]", item)
		}
		closing += open + 1
		for i := range names {
			names[i] += rest[:open]
		}
		nums, err := expandRanges(rest[open+1:closing], limit/max(len(names), 1))
		if err != nil {
			return nil, fmt.Errorf("%q: %w", item, err)
		}
		grown := make([]string, 0, len(names)*len(nums))
		for _, n := range names {
			for _, s := range nums {
				grown = append(grown, n+s)
			}
		}
		names = grown
		rest = rest[closing+1:]
	}
	if len(names) > limit {
		return nil, fmt.Errorf("%q: more than %d hosts", item, maxHosts)
	}
	return names, nil
}

// expandRanges expands the inside of one bracket, "01-04,07", into its
// numbers as text, each as wide as its range's lower bound; at most
// limit of them.
func expandRanges(s string, limit int) ([]string, error) {
	var out []string
	for _, r := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(strings.TrimSpace(r), "-")
		if !isRange {
			hi = lo
		}
		a, errA := number(lo)
		b, errB := number(hi)
		switch {
		case errA != nil || errB != nil:
			return nil, fmt.Errorf("range %q: want N or N-M with N and M numbers, e.g. [01-04,07]", r)
		case b < a:
			return nil, fmt.Errorf("range %q: its end is below its start", r)
		case b-a >= uint64(limit-len(out)):
			return nil, fmt.Errorf("range %q: more than %d hosts", r, maxHosts)
		}
		for v := a; v <= b; v++ {
			out = append(out, fmt.Sprintf("%0*d", len(lo), v))
		}
	}
	return out, nil
}

// number reads a range's bound: decimal digits only.
func number(s string) (uint64, error) {
	if s == "" || strings.TrimLeft(s, "0123456789") != "" || len(s) > 18 {
		return 0, fmt.Errorf("not a number: %q", s)
	}
	return strconv.ParseUint(s, 10, 64)
}

// ExpandCounts expands a SLURM list of counts, as
// SLURM_STEP_TASKS_PER_NODE gives it: "2(x3),1" is 2 2 2 1.
func ExpandCounts(list string) ([]int, error) {
	var out []int
	for _, item := range strings.Split(list, ",") {
		count, times := item, "1"
		if c, t, ok := strings.Cut(item, "(x"); ok && strings.HasSuffix(t, ")") {
			count, times = c, strings.TrimSuffix(t, ")")
		}
		c, errC := strconv.Atoi(count)
		n, errN := strconv.Atoi(times)
		if errC != nil || errN != nil || c < 0 || n < 1 || n > maxHosts-len(out) {
			return nil, fmt.Errorf("count list %q: want counts such as 2(x3),1", list)
		}
		for range n {
			out = append(out, c)
		}
	}
	return out, nil
}
