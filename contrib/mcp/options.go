package reflectionmcp

import "log/slog"

// Option configures NewTools, Dispatch or CallTool. Each reads the options
// that concern it and ignores the others.
type Option func(*config)

// config is what the options set.
type config struct {
	logger         *slog.Logger // Tools: where a failed refresh is reported
	maxResultBytes int          // Dispatch, CallTool: the cap of a result's text
}

// newConfig applies opts, skipping nil ones, to the defaults.
func newConfig(opts []Option) config {
	c := config{maxResultBytes: DefaultMaxResultBytes}
	for _, opt := range opts {
		if opt != nil {
			opt(&c)
		}
	}
	return c
}

// WithLogger sets where a Tools reports a listing that failed after a change
// notification (it has no caller to return an error to). nil, the default,
// logs nothing. Used by NewTools.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) { c.logger = l }
}

// WithMaxResultBytes sets the most bytes of a tools/call result's text the
// model reads, as [ResultText] builds it; what is over is cut on a UTF-8
// boundary and replaced by a marker that says how many bytes were dropped.
// The default is DefaultMaxResultBytes; n ≤ 0 means the default. Used by
// Dispatch and CallTool.
func WithMaxResultBytes(n int) Option {
	return func(c *config) {
		if n <= 0 {
			n = DefaultMaxResultBytes
		}
		c.maxResultBytes = n
	}
}
