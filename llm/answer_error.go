package llm

import (
	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/internal/textcut"
)

// maxQuotedAnswer bounds how much of an unusable answer its error quotes.
const maxQuotedAnswer = 512

// answerError is what Analyze returns for an answer it cannot use: its text,
// already redacted, names the problem in the validator's words and quotes the
// answer; it wraps reflection.ErrInternal and the cause.
type answerError struct {
	text  string
	cause error
}

func (e *answerError) Error() string { return e.text }

func (e *answerError) Unwrap() []error {
	if e.cause == nil {
		return []error{reflection.ErrInternal}
	}
	return []error{reflection.ErrInternal, e.cause}
}

// answerError renders p for the answer text; cutAtLimit says whether the
// answer was cut at the token limit.
func (r *Reflector) answerError(p *problem, text string, cutAtLimit bool) error {
	msg := "llm: " + p.what + ": " + reflection.ErrInternal.Error()
	if p.detail != "" {
		msg += ": " + r.redacted(p.detail)
	}
	if cutAtLimit {
		msg += " (the answer was cut at the token limit)"
	}
	msg += "; the answer was: " + textcut.Cut(r.redacted(text), maxQuotedAnswer)
	return &answerError{text: msg, cause: p.cause}
}
