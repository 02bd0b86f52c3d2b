package reflectionopenai

// Option configures a Runner in NewRunner.
type Option func(*config)

// config is what the options set.
type config struct {
	concurrency int // calls of one turn run at once; 1 runs them one after another
}

// defaultConfig is a Runner's configuration before its options.
func defaultConfig() config { return config{concurrency: 1} }

// WithConcurrency lets up to n tool calls of one turn run at once, each on
// its own goroutine, for a host whose tools are safe to run side by side.
// The calls start in the model's order and their messages come back in that
// order whatever order they end in. n of 1 or less runs them one after
// another, the default.
func WithConcurrency(n int) Option {
	return func(c *config) { c.concurrency = max(n, 1) }
}
