// Package caps holds the defaults of a Driver's two size caps, which the
// root package applies and which reflectiontest's model of the machine and
// the recovery benchmark's scenario checks must agree with. Their values are
// part of the options' documentation (WithMaxRetryAfter, 60s;
// WithMaxCorrectedInput, 1 MiB); only the library's own packages need them
// as names. It imports only the standard library.
package caps

import "time"

// MaxRetryAfter is the largest rate-limit hint a Driver waits for unless
// WithMaxRetryAfter says otherwise.
const MaxRetryAfter = 60 * time.Second

// MaxCorrectedInput is the largest InputFix, in bytes, that a Driver
// applies unless WithMaxCorrectedInput says otherwise.
const MaxCorrectedInput = 1 << 20
