package reflection

import "time"

// The four exported names below left the public API: the library's own
// packages read an error through internal/errchain and the default caps in
// internal/caps, and the root package through errorText, retryAfterHint,
// defaultMaxRetryAfter and defaultMaxCorrectedInput. They stay here only
// until the machine's and the runtime's files, which are being rewritten,
// switch to the unexported names; .ci/rename-by-layer switches them and
// deletes this file.

// ErrorText returns err.Error(): "" for a nil err, and a description of err
// when its Error method panics.
func ErrorText(err error) string { return errorText(err) }

// RetryAfterHint returns the rate-limit hint of err: the value of the first
// error in its chain with a method RetryAfter() time.Duration, or 0.
func RetryAfterHint(err error) time.Duration { return retryAfterHint(err) }

// DefaultMaxRetryAfter is the largest rate-limit hint a Driver waits for
// unless WithMaxRetryAfter says otherwise.
const DefaultMaxRetryAfter = defaultMaxRetryAfter

// DefaultMaxCorrectedInput is the largest InputFix, in bytes, that a Driver
// applies unless WithMaxCorrectedInput says otherwise.
const DefaultMaxCorrectedInput = defaultMaxCorrectedInput
