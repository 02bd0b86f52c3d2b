package reflectionotel

import (
	"github.com/loopctl-go/reflection/internal/errchain"
	"github.com/loopctl-go/reflection/internal/scrub"
	"go.opentelemetry.io/otel/attribute"
)

// text returns s as it may go into a span: redacted when the host opted in
// to texts (WithTexts), and "" when it did not.
func (t *Telemetry) text(s string) string {
	if !t.texts {
		return ""
	}
	if t.redact != nil {
		return scrub.Text(t.redact, s)
	}
	return s
}

// errText returns the text of err as it may go into a span: "" unless the
// host opted in to texts, and then redacted. Error is called only then.
func (t *Telemetry) errText(err error) string {
	if !t.texts {
		return ""
	}
	return t.text(errchain.Text(err))
}

// appendErr appends error.type and, when the host opted in to texts,
// key=the error's text to attrs.
func (t *Telemetry) appendErr(attrs []attribute.KeyValue, key attribute.Key, err error) []attribute.KeyValue {
	attrs = append(attrs, errorType(err))
	if s := t.errText(err); s != "" {
		attrs = append(attrs, key.String(s))
	}
	return attrs
}

// appendText appends key=s to attrs when the host opted in to texts and s is
// not empty.
func (t *Telemetry) appendText(attrs []attribute.KeyValue, key attribute.Key, s string) []attribute.KeyValue {
	if !t.texts || s == "" {
		return attrs
	}
	return append(attrs, key.String(t.text(s)))
}
