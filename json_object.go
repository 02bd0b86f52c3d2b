package reflection

// scanObject reports whether b is exactly one valid JSON value that is an
// object (white space around it allowed: json.Valid's grammar, its nesting
// limit included), and whether an object anywhere in it holds two keys that
// are equal, or equal under Unicode case folding (escapes decoded).
//
// Parsers disagree on such objects: encoding/json matches keys to struct
// fields without regard to case and lets the last one win, others keep the
// first. An input a schema checked could then reach a tool with another
// value, so the Driver drops an InputFix that has them, and InputText
// refuses them. A small object is checked without allocating.
func scanObject(b []byte) (object, dup bool) {
	r := ScanJSON(b, JSONLimits{})
	return r.Object, r.Object && r.Dup
}
