package reflection_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopctl-go/reflection"
)

// answer is a reflector that always answers root.
func answer(root string) reflection.Reflector {
	return reflection.ReflectorFunc(func(context.Context, reflection.Failure) (reflection.FailureAnalysis, error) {
		return reflection.FailureAnalysis{RootCause: root}, nil
	})
}

// failWith is a reflector that always fails with err.
func failingWith(err error) reflection.Reflector {
	return reflection.ReflectorFunc(func(context.Context, reflection.Failure) (reflection.FailureAnalysis, error) {
		return reflection.FailureAnalysis{RootCause: "ignored"}, err
	})
}

type causeErr struct{ why string }

func (e *causeErr) Error() string { return e.why }

func TestChain(t *testing.T) {
	skip := reflection.ErrSkipped
	internal := reflection.ErrInternal
	panics := reflection.ReflectorFunc(func(context.Context, reflection.Failure) (reflection.FailureAnalysis, error) { panic("boom") })
	custom := &causeErr{why: "quota"}
	tests := []struct {
		name     string
		chain    []reflection.Reflector
		wantRoot string
		wantIs   []error
		wantNot  []error
	}{
		{name: "first answer wins", chain: []reflection.Reflector{answer("a"), answer("b")}, wantRoot: "a"},
		{name: "a skip hands over", chain: []reflection.Reflector{failingWith(skip), answer("b")}, wantRoot: "b"},
		{name: "an error hands over", chain: []reflection.Reflector{failingWith(internal), answer("b")}, wantRoot: "b"},
		{name: "a panic hands over", chain: []reflection.Reflector{panics, answer("b")}, wantRoot: "b"},
		{name: "nil reflectors are left out", chain: []reflection.Reflector{nil, answer("b")}, wantRoot: "b"},
		{name: "all skipped", chain: []reflection.Reflector{failingWith(skip), failingWith(skip)},
			wantIs: []error{skip}, wantNot: []error{internal}},
		{name: "one failed", chain: []reflection.Reflector{failingWith(skip), failingWith(custom)},
			wantIs: []error{internal, skip}},
		{name: "a panic is a failure", chain: []reflection.Reflector{failingWith(skip), panics},
			wantIs: []error{internal, reflection.ErrPanicked}},
		{name: "empty", chain: nil, wantIs: []error{skip}, wantNot: []error{internal}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := reflection.Chain(tt.chain...).Analyze(context.Background(), reflection.Failure{Error: "x"})
			if tt.wantIs == nil {
				require.NoError(t, err)
				assert.Equal(t, tt.wantRoot, a.RootCause)
				return
			}
			require.Error(t, err)
			assert.Equal(t, reflection.FailureAnalysis{}, a)
			for _, target := range tt.wantIs {
				assert.ErrorIs(t, err, target)
			}
			for _, target := range tt.wantNot {
				assert.NotErrorIs(t, err, target)
			}
		})
	}
	t.Run("each cause stays reachable", func(t *testing.T) {
		_, err := reflection.Chain(failingWith(skip), failingWith(custom)).Analyze(context.Background(), reflection.Failure{})
		var got *causeErr
		require.ErrorAs(t, err, &got)
		assert.Same(t, custom, got)
		assert.Contains(t, err.Error(), "quota")
	})
	t.Run("a cancel stops the chain", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		asked := 0
		first := reflection.ReflectorFunc(func(ctx context.Context, _ reflection.Failure) (reflection.FailureAnalysis, error) {
			cancel()
			return reflection.FailureAnalysis{}, ctx.Err()
		})
		second := reflection.ReflectorFunc(func(context.Context, reflection.Failure) (reflection.FailureAnalysis, error) {
			asked++
			return reflection.FailureAnalysis{}, nil
		})
		_, err := reflection.Chain(first, second).Analyze(ctx, reflection.Failure{})
		assert.ErrorIs(t, err, context.Canceled)
		assert.ErrorIs(t, err, internal)
		assert.Zero(t, asked)
	})
	t.Run("under a Driver a chain error logs as the worst of its causes", func(t *testing.T) {
		logs, logger := newLogBuffer()
		d := reflection.NewDriver(reflection.WithLogger(logger),
			reflection.WithReflector(reflection.Chain(failingWith(skip), failingWith(errors.New("down")))))
		_, err := d.Run(context.Background(), fixCall, func(context.Context, reflection.ToolCall) (reflection.ToolResult, error) {
			return reflection.ToolResult{}, errors.New("x")
		})
		require.NoError(t, err)
		assert.Len(t, logs.Find(t, "ERROR", "reflection: reflector failed"), 1)
	})
}
