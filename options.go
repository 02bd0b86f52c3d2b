package reflection

import "log/slog"

// Option configures a Driver in NewDriver.
type Option func(*Driver)

// WithReflector sets the Reflector that analyses failures. nil means the
// default, NoopReflector{}.
func WithReflector(r Reflector) Option {
	return func(d *Driver) { d.reflector = r }
}

// WithStrategy sets the RecoveryStrategy that decides what follows a
// failure. nil means the default, NewExponentialBackoff(3).
func WithStrategy(s RecoveryStrategy) Option {
	return func(d *Driver) { d.strategy = s }
}

// WithSchemas sets how the Driver finds a tool's schema. The schema goes to
// the Reflector in Failure.Schema, and a ToolChange to a tool the lookup does
// not know is dropped. nil means none: Failure.Schema is nil and any
// ToolChange applies.
func WithSchemas(lookup SchemaLookup) Option {
	return func(d *Driver) { d.schemas = lookup }
}

// WithLogger sets the logger for recovery decisions, dropped corrections and
// reflector failures. nil means the default, which logs nothing.
func WithLogger(l *slog.Logger) Option {
	return func(d *Driver) { d.logger = l }
}

// WithObserver sets hooks that see every step of the loop as it happens.
// Only the hooks that are set are called; a Driver without an observer pays
// nothing for the feature.
func WithObserver(o Observer) Option {
	return func(d *Driver) {
		if o.empty() {
			d.observer = nil
			return
		}
		d.observer = &o
	}
}

// WithToolChangeFilter restricts the tools a ToolChange correction may switch
// to: allow(from, to) must return true, or the correction is dropped with a
// warning and the retry runs the current tool. Use it to keep a model's
// suggestion away from destructive tools. nil means any tool the SchemaLookup
// (if any) knows.
func WithToolChangeFilter(allow func(from, to string) bool) Option {
	return func(d *Driver) { d.allowTool = allow }
}

// WithAllowedTools is WithToolChangeFilter with an allow-list: a ToolChange
// may switch only to one of names.
func WithAllowedTools(names ...string) Option {
	set := make(map[string]struct{}, len(names))
	for _, n := range names {
		set[n] = struct{}{}
	}
	return WithToolChangeFilter(func(_, to string) bool {
		_, ok := set[to]
		return ok
	})
}

// WithMaxCorrectedInput sets the largest InputFix, in bytes, the Driver
// applies; a larger one is dropped with a warning. 0 means the default,
// DefaultMaxCorrectedInput; a negative n means no limit.
func WithMaxCorrectedInput(n int) Option {
	return func(d *Driver) { d.maxFixSize = n }
}
