package reflection

import "context"

// NoopReflector is the default Reflector. It calls every failure
// unrecoverable, at SeverityMedium, with the failure text as root cause and
// no correction, so under the default strategy a failed call is never
// retried. Its zero value is ready to use and safe for concurrent use.
type NoopReflector struct{}

// Analyze returns {IsRecoverable: false, RootCause: f.Error, Severity:
// SeverityMedium} and a nil error, for every input.
func (NoopReflector) Analyze(_ context.Context, f Failure) (FailureAnalysis, error) {
	return FailureAnalysis{
		IsRecoverable: false,
		RootCause:     f.Error,
		Severity:      SeverityMedium,
	}, nil
}
