package report

// Indent is how WriteJSON indents its compact encoding.
func Indent(src []byte) []byte { return indent(nil, src) }
