// Package shapes is what methodcount's test reads: each kind of
// receiver and embedded field TypeName names.
package shapes

import "strings"

type plain struct{}

func (plain) a()  {}
func (*plain) b() {}

type generic[T any] struct{ v T }

func (g *generic[T]) c() {}

type pair[K comparable, V any] struct{}

func (pair[K, V]) d() {}

type outer struct {
	plain
	*generic[int]
	strings.Builder
	named int
}
