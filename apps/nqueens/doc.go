// Package nqueens counts all placements of n non-attacking queens on an
// n x n board, one task per partial placement, with the board held as three
// bit masks (columns and both diagonals) so a task's argument is a few
// words and can cross nodes as is.
package nqueens
