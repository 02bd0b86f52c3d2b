package reflectionlangchaingo

// Option configures a wrapper in WrapTool and WrapTools.
type Option func(*config)

// config is what the options set.
type config struct {
	isFailure func(output string) bool // nil: every output without an error is a success
}

// WithFailedOutput sets how a wrapped tool's output is recognised as a
// failure when the tool reports failures in its output rather than as an
// error (langchaingo's own tools.Calculator returns "error from evaluator:
// ..." with a nil error, say). An output for which isFailure returns true
// is a failure the Driver analyses, with the output as its text. nil, the
// default, treats every output returned without an error as a success.
func WithFailedOutput(isFailure func(output string) bool) Option {
	return func(c *config) { c.isFailure = isFailure }
}
