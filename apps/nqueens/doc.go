// Package nqueens counts all placements of n non-attacking queens on an
// n x n board, one task per partial placement, with the board held as four
// bit masks (the board's columns, the columns taken and both diagonals) so
// a task's argument stays in registers and can cross nodes as is.
package nqueens
