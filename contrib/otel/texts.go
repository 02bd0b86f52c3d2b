package otel

import "go.opentelemetry.io/otel/attribute"

// text returns s as it may go into a span: redacted when the host opted in
// to texts (WithTexts), and "" when it did not.
func (t *Telemetry) text(s string) string {
	if !t.texts {
		return ""
	}
	if t.redact != nil {
		return t.redact(s)
	}
	return s
}

// appendText appends key=s to attrs when the host opted in to texts and s is
// not empty.
func (t *Telemetry) appendText(attrs []attribute.KeyValue, key attribute.Key, s string) []attribute.KeyValue {
	if !t.texts || s == "" {
		return attrs
	}
	return append(attrs, key.String(t.text(s)))
}
