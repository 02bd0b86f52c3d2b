package reflectionmcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopctl-go/reflection"
	reflectionmcp "github.com/loopctl-go/reflection/contrib/mcp"
	"github.com/loopctl-go/reflection/reflectiontest"
)

func inputFix(input string) reflection.FailureAnalysis {
	return reflection.FailureAnalysis{
		IsRecoverable: true,
		RootCause:     "wrong input",
		Correction:    &reflection.Correction{Type: reflection.InputFix, ModifiedInput: json.RawMessage(input)},
	}
}

func toolChange(tool string) reflection.FailureAnalysis {
	return reflection.FailureAnalysis{
		IsRecoverable: true,
		RootCause:     "wrong tool",
		Correction:    &reflection.Correction{Type: reflection.ToolChange, AlternativeTool: tool},
	}
}

var transient = reflection.FailureAnalysis{IsRecoverable: true, RootCause: "transient"}

// retryAfter is a strategy that always retries after delay, whatever the
// attempt: only the Driver's ceiling stops it.
func retryAfter(delay time.Duration) reflection.RecoveryStrategy {
	return reflection.StrategyFunc(func(context.Context, reflection.FailureAnalysis, int, int) reflection.RecoveryAction {
		return reflection.Retry{Delay: delay}
	})
}

// stubborn is a Driver that retries every failure at once until the ceiling.
func stubborn() *reflection.Driver {
	return reflection.NewDriver(
		reflection.WithReflector(reflectiontest.NewReflector(transient).RepeatLast()),
		reflection.WithStrategy(retryAfter(0)),
	)
}

// driver is a Driver that retries at once, with the server's tool list as
// its schemas.
func (f *fixture) driver(r reflection.Reflector) *reflection.Driver {
	return reflection.NewDriver(
		reflection.WithReflector(r),
		reflection.WithStrategy(reflection.NewExponentialBackoff(reflection.MaxRecoveryAttempts).WithBaseDelay(0)),
		reflection.WithSchemas(f.tools.Schemas()),
	)
}

// TestRecovery runs calls over a real MCP session through a Driver: each
// first call fails on the server (or in the SDK) and the Reflector's
// correction makes the retry succeed.
func TestRecovery(t *testing.T) {
	tests := []struct {
		name      string
		call      reflection.ToolCall
		answers   []reflection.FailureAnalysis
		want      string
		wantError string // the failure text the Reflector saw first
		wantRuns  map[string]int
	}{
		{
			name:      "an error result recovers by InputFix",
			call:      reflection.ToolCall{ID: "c1", Name: "read_file", Input: json.RawMessage(`{"path":"notes/todo.mdd"}`)},
			answers:   []reflection.FailureAnalysis{inputFix(`{"path":"notes/todo.md"}`)},
			want:      "- ship v1",
			wantError: "open notes/todo.mdd: no such file or directory",
			wantRuns:  map[string]int{"read_file": 2},
		},
		{
			name:      "arguments the SDK rejects recover by InputFix",
			call:      reflection.ToolCall{ID: "c2", Name: "read_file", Input: json.RawMessage(`{"file":"notes/todo.md"}`)},
			answers:   []reflection.FailureAnalysis{inputFix(`{"path":"notes/todo.md"}`)},
			want:      "- ship v1",
			wantError: `validating "arguments"`,
			wantRuns:  map[string]int{"read_file": 1}, // the handler never saw the bad call
		},
		{
			name:      "an error result recovers by ToolChange",
			call:      reflection.ToolCall{ID: "c3", Name: "search_v1", Input: json.RawMessage(`{"query":"todo"}`)},
			answers:   []reflection.FailureAnalysis{toolChange("search_v2")},
			want:      `{"hits":["notes/todo.md"],"query":"todo"}`,
			wantError: "search_v1 is deprecated; use search_v2",
			wantRuns:  map[string]int{"search_v1": 1, "search_v2": 1},
		},
		{
			name:      "an unknown tool recovers by ToolChange",
			call:      reflection.ToolCall{ID: "c4", Name: "search", Input: json.RawMessage(`{"query":"todo"}`)},
			answers:   []reflection.FailureAnalysis{toolChange("search_v2")},
			want:      `{"hits":["notes/todo.md"],"query":"todo"}`,
			wantError: `reflectionmcp: tool "search": calling "tools/call": unknown tool "search"`,
			wantRuns:  map[string]int{"search_v2": 1},
		},
		{
			name: "a ToolChange to a tool the server does not list is dropped",
			call: reflection.ToolCall{ID: "c5", Name: "search_v1", Input: json.RawMessage(`{"query":"todo"}`)},
			answers: []reflection.FailureAnalysis{
				toolChange("search_v3"), // not listed: the retry runs search_v1 again
				toolChange("search_v2"),
			},
			want:      `{"hits":["notes/todo.md"],"query":"todo"}`,
			wantError: "search_v1 is deprecated; use search_v2",
			wantRuns:  map[string]int{"search_v1": 2, "search_v2": 1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, 0)
			r := reflectiontest.NewReflector(tt.answers...).RepeatLast()
			res, err := f.driver(r).Run(context.Background(), tt.call, reflectionmcp.Dispatch(f.session))
			require.NoError(t, err)
			assert.Equal(t, reflection.ToolResult{ID: tt.call.ID, Content: tt.want}, res)

			asked := r.Failures()
			require.NotEmpty(t, asked)
			assert.Contains(t, asked[0].Error, tt.wantError)
			for tool, n := range tt.wantRuns {
				assert.Equal(t, n, f.ran(tool), "runs of %s", tool)
			}
		})
	}
}

// TestReflectorSeesSDKError checks that the SDK's error for an unknown tool
// reaches the Reflector in Failure.Err, so errors.As finds it.
func TestReflectorSeesSDKError(t *testing.T) {
	f := newFixture(t, 0)
	r := reflectiontest.NewReflector(toolChange("search_v2")).RepeatLast()
	call := reflection.ToolCall{ID: "c1", Name: "search", Input: json.RawMessage(`{"query":"todo"}`)}
	_, err := f.driver(r).Run(context.Background(), call, reflectionmcp.Dispatch(f.session))
	require.NoError(t, err)

	asked := r.Failures()
	require.Len(t, asked, 1)
	var wire *jsonrpc.Error
	require.ErrorAs(t, asked[0].Err, &wire)
	assert.Equal(t, int64(jsonrpc.CodeInvalidParams), wire.Code)
	assert.Equal(t, `unknown tool "search"`, wire.Message)
}

// TestReflectorSeesServerSchema checks that the Failure carries the input
// schema the server published for the failing tool.
func TestReflectorSeesServerSchema(t *testing.T) {
	f := newFixture(t, 0)
	r := reflectiontest.NewReflector(inputFix(`{"path":"notes/todo.md"}`)).RepeatLast()
	call := reflection.ToolCall{ID: "c1", Name: "read_file", Input: json.RawMessage(`{"path":"todo"}`)}
	_, err := f.driver(r).Run(context.Background(), call, reflectionmcp.Dispatch(f.session))
	require.NoError(t, err)

	asked := r.Failures()
	require.Len(t, asked, 1)
	require.NotNil(t, asked[0].Schema)
	assert.Equal(t, "read_file", asked[0].Schema.Name)
	assert.Equal(t, "Read a text file.", asked[0].Schema.Description)
	assert.JSONEq(t, `{
		"type": "object",
		"additionalProperties": false,
		"required": ["path"],
		"properties": {"path": {"type": "string", "description": "the path of the file to read"}}
	}`, string(asked[0].Schema.InputSchema))
}

// TestSoftFailure checks that a failure the strategy gives up on stays a
// soft error carrying the server's text: IsError is kept, and Run returns
// no error.
func TestSoftFailure(t *testing.T) {
	f := newFixture(t, 0)
	call := reflection.ToolCall{ID: "c1", Name: "read_file", Input: json.RawMessage(`{"path":"missing.md"}`)}

	t.Run("Run", func(t *testing.T) {
		res, err := reflection.NewDriver().Run(context.Background(), call, reflectionmcp.Dispatch(f.session))
		require.NoError(t, err)
		assert.Equal(t, reflection.ToolResult{ID: "c1", Content: "open missing.md: no such file or directory", IsError: true}, res)
	})
	t.Run("CallTool", func(t *testing.T) {
		res, err := reflectionmcp.CallTool(context.Background(), nil, f.session, call)
		require.NoError(t, err)
		assert.Equal(t, reflection.ToolResult{ID: "c1", Content: "open missing.md: no such file or directory", IsError: true}, res)
	})
	t.Run("AskUser", func(t *testing.T) {
		high := reflection.FailureAnalysis{
			IsRecoverable: true, RootCause: "needs a human", Severity: reflection.SeverityHigh,
			Correction: &reflection.Correction{Type: reflection.Escalate},
		}
		res, err := reflectionmcp.CallTool(context.Background(), f.driver(reflectiontest.NewReflector(high).RepeatLast()), f.session, call)
		require.NoError(t, err)
		assert.True(t, res.IsError)
		assert.Contains(t, res.Content, "open missing.md: no such file or directory")
		assert.Contains(t, res.Content, "A human decision is needed")
	})
	assert.Equal(t, 3, f.ran("read_file"))
}

// TestExhaustion runs a tool that never recovers: Run makes six calls and
// returns the exhaustion error, and CallTool hands the last failure text to
// the model instead, with no error, so the agent goes on.
func TestExhaustion(t *testing.T) {
	call := reflection.ToolCall{ID: "c1", Name: "flaky", Input: json.RawMessage(`{}`)}
	want := reflection.ToolResult{ID: "c1", Content: "backend unavailable (call 6)", IsError: true}

	t.Run("Run", func(t *testing.T) {
		f := newFixture(t, 0)
		res, err := stubborn().Run(context.Background(), call, reflectionmcp.Dispatch(f.session))
		var exhausted *reflection.ToolRecoveryExhaustedError
		require.ErrorAs(t, err, &exhausted)
		assert.Equal(t, &reflection.ToolRecoveryExhaustedError{Tool: "flaky", Attempts: 6}, exhausted)
		assert.Equal(t, want, res)
		assert.Equal(t, 6, f.ran("flaky"))
	})
	t.Run("CallTool", func(t *testing.T) {
		f := newFixture(t, 0)
		res, err := reflectionmcp.CallTool(context.Background(), stubborn(), f.session, call)
		require.NoError(t, err)
		assert.Equal(t, want, res)
		assert.Equal(t, 6, f.ran("flaky"))
	})
}

// TestDeadlineRefusal checks that a wait the Driver refuses because ctx's
// deadline comes first is, for CallTool, a soft end: ctx has not ended.
func TestDeadlineRefusal(t *testing.T) {
	f := newFixture(t, 0)
	d := reflection.NewDriver(
		reflection.WithReflector(reflectiontest.NewReflector(transient).RepeatLast()),
		reflection.WithStrategy(retryAfter(time.Hour)),
	)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	call := reflection.ToolCall{ID: "c1", Name: "flaky", Input: json.RawMessage(`{}`)}

	_, runErr := d.Run(ctx, call, reflectionmcp.Dispatch(f.session))
	require.ErrorIs(t, runErr, context.DeadlineExceeded)

	res, err := reflectionmcp.CallTool(ctx, d, f.session, call)
	require.NoError(t, err)
	assert.Equal(t, reflection.ToolResult{ID: "c1", Content: "backend unavailable (call 2)", IsError: true}, res)
}

// TestCancel cancels a call while the server runs it: Run and CallTool both
// return the cancel, and the server's handler sees its request cancelled.
func TestCancel(t *testing.T) {
	for _, viaCallTool := range []bool{false, true} {
		name := "Run"
		if viaCallTool {
			name = "CallTool"
		}
		t.Run(name, func(t *testing.T) {
			f := newFixture(t, 0)
			started := make(chan struct{})
			handlerDone := make(chan error, 1)
			f.addSlowTool(started, handlerDone)

			ctx, cancel := context.WithCancel(context.Background())
			go func() {
				<-started
				cancel()
			}()
			call := reflection.ToolCall{ID: "c1", Name: "slow", Input: json.RawMessage(`{}`)}
			d := f.driver(reflectiontest.NewReflector(transient).RepeatLast())
			var (
				res reflection.ToolResult
				err error
			)
			if viaCallTool {
				res, err = reflectionmcp.CallTool(ctx, d, f.session, call)
			} else {
				res, err = d.Run(ctx, call, reflectionmcp.Dispatch(f.session))
			}
			require.ErrorIs(t, err, context.Canceled)
			assert.True(t, res.IsError)
			assert.Equal(t, "c1", res.ID)
			require.ErrorIs(t, <-handlerDone, context.Canceled)
			assert.Equal(t, 1, f.ran("slow"))
		})
	}
}

// TestDispatchErrors checks the failures Dispatch reports itself.
func TestDispatchErrors(t *testing.T) {
	f := newFixture(t, 0)
	ctx := context.Background()

	t.Run("unknown tool keeps the SDK's error reachable", func(t *testing.T) {
		_, err := reflectionmcp.Dispatch(f.session)(ctx, reflection.ToolCall{Name: "nope", Input: json.RawMessage(`{}`)})
		var wire *jsonrpc.Error
		require.ErrorAs(t, err, &wire)
		assert.Equal(t, int64(jsonrpc.CodeInvalidParams), wire.Code)
		assert.EqualError(t, err, `reflectionmcp: tool "nope": calling "tools/call": unknown tool "nope"`)
	})
	t.Run("input that is not JSON never reaches the server", func(t *testing.T) {
		res, err := reflectionmcp.Dispatch(f.session)(ctx, reflection.ToolCall{ID: "x", Name: "read_file", Input: json.RawMessage(`{"path":`)})
		assert.EqualError(t, err, `reflectionmcp: tool "read_file": input is not valid JSON`)
		assert.Equal(t, reflection.ToolResult{ID: "x"}, res)
		assert.Equal(t, 0, f.ran("read_file"))
	})
	t.Run("no input and null send an empty object", func(t *testing.T) {
		for _, in := range []string{"", "null", "  null\n"} {
			res, err := reflectionmcp.Dispatch(f.session)(ctx, reflection.ToolCall{ID: "x", Name: "flaky", Input: json.RawMessage(in)})
			require.NoError(t, err, "input %q", in)
			assert.True(t, res.IsError, "input %q", in)
			assert.Contains(t, res.Content, "backend unavailable", "input %q: the handler ran", in)
		}
	})
	t.Run("nil session", func(t *testing.T) {
		call := reflection.ToolCall{ID: "x", Name: "read_file", Input: json.RawMessage(`{}`)}
		_, err := reflectionmcp.Dispatch(nil)(ctx, call)
		require.ErrorIs(t, err, reflectionmcp.ErrNilSession)

		res, err := reflectionmcp.CallTool(ctx, f.driver(reflectiontest.NewReflector(transient).RepeatLast()), nil, call)
		require.ErrorIs(t, err, reflectionmcp.ErrNilSession)
		assert.Equal(t, reflection.ToolResult{ID: "x", Content: err.Error(), IsError: true}, res)
	})
	t.Run("closed session", func(t *testing.T) {
		g := newFixture(t, 0)
		require.NoError(t, g.session.Close())
		_, err := reflectionmcp.Dispatch(g.session)(ctx, reflection.ToolCall{Name: "flaky", Input: json.RawMessage(`{}`)})
		require.Error(t, err)
		assert.True(t, errors.Is(err, mcp.ErrConnectionClosed), "got %v", err)
	})
}
