package gosrc

import "strings"

// Deprecated reports whether a doc comment's text (ast.CommentGroup's
// Text) has a paragraph that begins "Deprecated: ", the form go doc,
// gopls and staticcheck read as deprecating what the comment documents.
func Deprecated(text string) bool {
	return strings.HasPrefix(text, "Deprecated: ") || strings.Contains(text, "\n\nDeprecated: ")
}
