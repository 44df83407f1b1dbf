package sim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/tsys-go/tsys/inline"
	"github.com/tsys-go/tsys/internal/hog"
)

// modelFile is a Model as a file spells it (tsys sim --model FILE): names
// as the flags have them, durations as Go writes them ("50us"). Fields it
// leaves out keep their values.
type modelFile struct {
	Nodes        *int              `json:"nodes"`
	Workers      *int              `json:"workers"`
	Zones        *int              `json:"zones"`
	Latency      *string           `json:"latency"`
	CrossLatency *string           `json:"cross_latency"`
	Bandwidth    *float64          `json:"bandwidth"`
	Overhead     *string           `json:"overhead"`
	TaskBytes    *int              `json:"task_bytes"`
	ResultBytes  *int              `json:"result_bytes"`
	Tick         *string           `json:"tick"`
	Wake         *string           `json:"wake"`
	Spawn        *string           `json:"spawn"`
	ResultHold   *string           `json:"result_hold"`
	Inline       *string           `json:"inline"`
	Speed        []float64         `json:"speed"`
	Hogs         map[string]string `json:"hogs"` // node index: hog spec
	Detect       *string           `json:"detect"`
}

// ReadModel reads a model file over m, and says which field is wrong if
// one is.
func ReadModel(path string, m Model) (Model, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return m, fmt.Errorf("--model: %w", err)
	}
	var f modelFile
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(&f); err != nil {
		return m, fmt.Errorf("--model %s does not parse: %w", path, err)
	}
	dur := func(name string, s *string, into *time.Duration) error {
		if s == nil {
			return nil
		}
		v, err := time.ParseDuration(*s)
		if err != nil {
			return fmt.Errorf("--model %s: %s %q: want a duration such as 50us", path, name, *s)
		}
		*into = v
		return nil
	}
	for _, c := range []struct {
		name string
		s    *string
		into *time.Duration
	}{
		{"latency", f.Latency, &m.Latency}, {"cross_latency", f.CrossLatency, &m.CrossLatency},
		{"overhead", f.Overhead, &m.Overhead}, {"tick", f.Tick, &m.Tick}, {"wake", f.Wake, &m.Wake},
		{"spawn", f.Spawn, &m.Spawn}, {"result_hold", f.ResultHold, &m.ResultHold},
		{"detect", f.Detect, &m.Detect},
	} {
		if err := dur(c.name, c.s, c.into); err != nil {
			return m, err
		}
	}
	set := func(p *int, into *int) {
		if p != nil {
			*into = *p
		}
	}
	set(f.Nodes, &m.Nodes)
	set(f.Workers, &m.Workers)
	set(f.Zones, &m.Zones)
	set(f.TaskBytes, &m.TaskBytes)
	set(f.ResultBytes, &m.ResultBytes)
	if f.Bandwidth != nil {
		m.Bandwidth = *f.Bandwidth
	}
	if f.Inline != nil {
		p, err := inline.Parse(*f.Inline)
		if err != nil {
			return m, fmt.Errorf("--model %s: inline: %w", path, err)
		}
		m.Inline = p
	}
	if f.Speed != nil {
		m.Speed = f.Speed
	}
	if f.Hogs != nil {
		m.Hogs = map[int]hog.Spec{}
		for k, v := range f.Hogs {
			var i int
			if _, err := fmt.Sscan(k, &i); err != nil {
				return m, fmt.Errorf("--model %s: hogs: node %q: want a node index", path, k)
			}
			h, err := hog.Parse(v)
			if err != nil {
				return m, fmt.Errorf("--model %s: hogs: node %d: %w", path, i, err)
			}
			m.Hogs[i] = h
		}
	}
	return m, nil
}
