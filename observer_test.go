package reflection_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopctl-go/reflection"
)

// eventLog is an Observer that writes one line per hook call.
type eventLog struct {
	events []string
	ctxOK  bool // every hook got the Run context
}

func (l *eventLog) add(format string, args ...any) {
	l.events = append(l.events, fmt.Sprintf(format, args...))
}

// observer returns an Observer with every hook set; each checks it got a
// context carrying the task "t".
func (l *eventLog) observer() reflection.Observer {
	l.ctxOK = true
	check := func(ctx context.Context) {
		if reflection.TaskFromContext(ctx) != "t" {
			l.ctxOK = false
		}
	}
	return reflection.Observer{
		DispatchStart: func(ctx context.Context, attempt int, call reflection.ToolCall) {
			check(ctx)
			l.add("start %d %s %s %s", attempt, call.ID, call.Name, call.Input)
		},
		DispatchDone: func(ctx context.Context, attempt int, res reflection.ToolResult, err error) {
			check(ctx)
			l.add("done %d %+v err=%v panicked=%v", attempt, res, err, errors.Is(err, reflection.ErrPanicked))
		},
		Analyzed: func(ctx context.Context, f reflection.Failure, a reflection.FailureAnalysis, err error) {
			check(ctx)
			l.add("analyzed %d/%d %s %s %q recoverable=%v err=%v", f.Attempt, f.MaxAttempts, f.Tool, f.Input, f.Error, a.IsRecoverable, err)
		},
		Decided: func(ctx context.Context, attempt int, action reflection.RecoveryAction) {
			check(ctx)
			l.add("decided %d %#v", attempt, action)
		},
		Waiting: func(ctx context.Context, attempt int, delay time.Duration) {
			check(ctx)
			l.add("waiting %d %v", attempt, delay)
		},
		Corrected: func(ctx context.Context, attempt int, c reflection.Correction, applied bool, why string) {
			check(ctx)
			l.add("corrected %d %s applied=%v why=%q", attempt, c.Type, applied, why)
		},
		Finished: func(ctx context.Context, calls int, res reflection.ToolResult, err error) {
			check(ctx)
			l.add("finished %d %+v err=%v", calls, res, err)
		},
	}
}

func TestObserverHookOrder(t *testing.T) {
	// The first failure's InputFix applies after a 1s wait; the second
	// failure's ToolChange to an unknown tool is dropped after 2s; advice
	// after the third changes nothing; the fourth call succeeds.
	refl := &fakeReflector{analysis: func(f reflection.Failure) reflection.FailureAnalysis {
		a := reflection.FailureAnalysis{IsRecoverable: true, RootCause: f.Error}
		switch f.Attempt {
		case 0:
			a.Correction = &reflection.Correction{Type: reflection.InputFix, ModifiedInput: json.RawMessage(`{"path":"/y"}`)}
		case 1:
			a.Correction = &reflection.Correction{Type: reflection.ToolChange, AlternativeTool: "ghost"}
		case 2:
			a.Correction = &reflection.Correction{Type: reflection.Escalate, Guidance: "g"}
		}
		return a
	}}
	synctest.Test(t, func(t *testing.T) {
		var log eventLog
		d := reflection.NewDriver(
			reflection.WithReflector(refl),
			reflection.WithStrategy(delays(time.Second, 2*time.Second, -time.Second)),
			reflection.WithSchemas(knownTools("read_file")),
			reflection.WithObserver(log.observer()),
		)
		tool := &fakeTool{fails: 3, output: "contents"}
		ctx := reflection.ContextWithTask(context.Background(), "t")
		got, err := d.Run(ctx, testCall, tool.dispatch)
		require.NoError(t, err)
		assert.Equal(t, reflection.ToolResult{ID: "call-1", Content: "contents"}, got)
		want := []string{
			`start 0 call-1 read_file {"path":"/tmp/x"}`,
			`done 0 {ID:tool-set-id Content:boom 1 IsError:true} err=<nil> panicked=false`,
			`analyzed 0/6 read_file {"path":"/tmp/x"} "boom 1" recoverable=true err=<nil>`,
			`decided 0 reflection.Retry{Delay:1000000000}`,
			`waiting 0 1s`,
			`corrected 0 input_fix applied=true why=""`,
			`start 1 call-1 read_file {"path":"/y"}`,
			`done 1 {ID:tool-set-id Content:boom 2 IsError:true} err=<nil> panicked=false`,
			`analyzed 1/6 read_file {"path":"/y"} "boom 2" recoverable=true err=<nil>`,
			`decided 1 reflection.Retry{Delay:2000000000}`,
			`waiting 1 2s`,
			`corrected 1 tool_change applied=false why="the alternative tool is not registered"`,
			`start 2 call-1 read_file {"path":"/y"}`,
			`done 2 {ID:tool-set-id Content:boom 3 IsError:true} err=<nil> panicked=false`,
			`analyzed 2/6 read_file {"path":"/y"} "boom 3" recoverable=true err=<nil>`,
			`decided 2 reflection.Retry{Delay:-1000000000}`,
			`waiting 2 0s`,
			`start 3 call-1 read_file {"path":"/y"}`,
			`done 3 {ID:tool-set-id Content:contents IsError:false} err=<nil> panicked=false`,
			`finished 4 {ID:call-1 Content:contents IsError:false} err=<nil>`,
		}
		assert.Equal(t, want, log.events)
		assert.True(t, log.ctxOK, "every hook gets Run's context")
	})
}

func TestObserverEndings(t *testing.T) {
	tests := []struct {
		name     string
		ctx      func() (context.Context, context.CancelFunc)
		dispatch reflection.DispatchFunc
		refl     reflection.Reflector
		strategy reflection.RecoveryStrategy
		want     []string
	}{
		{
			name: "success first time",
			dispatch: func(context.Context, reflection.ToolCall) (reflection.ToolResult, error) {
				return reflection.ToolResult{Content: "fine"}, nil
			},
			want: []string{
				`start 0 call-1 read_file {"path":"/tmp/x"}`,
				`done 0 {ID: Content:fine IsError:false} err=<nil> panicked=false`,
				`finished 1 {ID:call-1 Content:fine IsError:false} err=<nil>`,
			},
		},
		{
			name: "stock defaults fail once",
			dispatch: func(context.Context, reflection.ToolCall) (reflection.ToolResult, error) {
				return reflection.ToolResult{}, errors.New("refused")
			},
			want: []string{
				`start 0 call-1 read_file {"path":"/tmp/x"}`,
				`done 0 {ID: Content: IsError:false} err=refused panicked=false`,
				`analyzed 0/6 read_file {"path":"/tmp/x"} "refused" recoverable=false err=<nil>`,
				`decided 0 reflection.Fail{Reason:"refused"}`,
				`finished 1 {ID:call-1 Content:refused IsError:true} err=<nil>`,
			},
		},
		{
			name: "panic in dispatch",
			dispatch: func(context.Context, reflection.ToolCall) (reflection.ToolResult, error) {
				panic("bad")
			},
			want: []string{
				`start 0 call-1 read_file {"path":"/tmp/x"}`,
				`done 0 {ID: Content: IsError:false} err=tool "read_file" panicked: bad panicked=true`,
				`analyzed 0/6 read_file {"path":"/tmp/x"} "tool \"read_file\" panicked: bad" recoverable=false err=<nil>`,
				`decided 0 reflection.Fail{Reason:"tool \"read_file\" panicked: bad"}`,
				`finished 1 {ID:call-1 Content:tool "read_file" panicked: bad IsError:true} err=<nil>`,
			},
		},
		{
			name:     "reflector error",
			dispatch: alwaysFails().dispatch,
			refl:     &fakeReflector{err: errors.New("no model")},
			want: []string{
				`start 0 call-1 read_file {"path":"/tmp/x"}`,
				`done 0 {ID:tool-set-id Content:boom 1 IsError:true} err=<nil> panicked=false`,
				`analyzed 0/6 read_file {"path":"/tmp/x"} "boom 1" recoverable=false err=no model`,
				`decided 0 reflection.Fail{Reason:"no model"}`,
				`finished 1 {ID:call-1 Content:boom 1 IsError:true} err=<nil>`,
			},
		},
		{
			name:     "ask user",
			dispatch: alwaysFails().dispatch,
			refl:     recoverable(),
			strategy: &fakeStrategy{decide: func(int) reflection.RecoveryAction { return reflection.AskUser{Prompt: "ok?"} }},
			want: []string{
				`start 0 call-1 read_file {"path":"/tmp/x"}`,
				`done 0 {ID:tool-set-id Content:boom 1 IsError:true} err=<nil> panicked=false`,
				`analyzed 0/6 read_file {"path":"/tmp/x"} "boom 1" recoverable=true err=<nil>`,
				`decided 0 reflection.AskUser{Prompt:"ok?"}`,
				"finished 1 {ID:call-1 Content:boom 1\n\nA human decision is needed before this call can be retried: ok? IsError:true} err=<nil>",
			},
		},
		{
			name: "cancelled before dispatch",
			ctx: func() (context.Context, context.CancelFunc) {
				ctx, cancel := context.WithCancel(reflection.ContextWithTask(context.Background(), "t"))
				cancel()
				return ctx, cancel
			},
			dispatch: alwaysFails().dispatch,
			want: []string{
				`finished 0 {ID:call-1 Content:reflection: call stopped: context canceled IsError:true} err=reflection: call stopped: context canceled`,
			},
		},
		{
			name: "deadline refuses the wait",
			ctx: func() (context.Context, context.CancelFunc) {
				return context.WithTimeout(reflection.ContextWithTask(context.Background(), "t"), time.Second)
			},
			dispatch: alwaysFails().dispatch,
			refl:     recoverable(),
			strategy: retryAfter(time.Minute),
			want: []string{
				`start 0 call-1 read_file {"path":"/tmp/x"}`,
				`done 0 {ID:tool-set-id Content:boom 1 IsError:true} err=<nil> panicked=false`,
				`analyzed 0/6 read_file {"path":"/tmp/x"} "boom 1" recoverable=true err=<nil>`,
				`decided 0 reflection.Retry{Delay:60000000000}`,
				`waiting 0 1m0s`,
				`finished 1 {ID:call-1 Content:boom 1 IsError:true} err=reflection: retry in 1m0s would end past the context deadline: context deadline exceeded`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx, cancel := reflection.ContextWithTask(context.Background(), "t"), context.CancelFunc(func() {})
				if tt.ctx != nil {
					ctx, cancel = tt.ctx()
				}
				defer cancel()
				var log eventLog
				opts := []reflection.Option{reflection.WithObserver(log.observer())}
				if tt.refl != nil {
					opts = append(opts, reflection.WithReflector(tt.refl))
				}
				if tt.strategy != nil {
					opts = append(opts, reflection.WithStrategy(tt.strategy))
				}
				_, _ = reflection.NewDriver(opts...).Run(ctx, testCall, tt.dispatch)
				assert.Equal(t, tt.want, log.events)
				assert.True(t, log.ctxOK)
			})
		})
	}
}

// TestObserverExhausted: the ceiling is reported once by Finished, after the
// sixth Decided and with no Waiting after it.
func TestObserverExhausted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var waits, decides []int
		var finishedCalls int
		var finishedErr error
		obs := reflection.Observer{
			Waiting: func(_ context.Context, attempt int, _ time.Duration) { waits = append(waits, attempt) },
			Decided: func(_ context.Context, attempt int, _ reflection.RecoveryAction) { decides = append(decides, attempt) },
			Finished: func(_ context.Context, calls int, _ reflection.ToolResult, err error) {
				finishedCalls, finishedErr = calls, err
			},
		}
		d := reflection.NewDriver(reflection.WithReflector(recoverable()), reflection.WithStrategy(retryAfter(time.Second)), reflection.WithObserver(obs))
		_, err := d.Run(context.Background(), testCall, alwaysFails().dispatch)
		require.ErrorIs(t, err, reflection.ErrToolRecoveryExhausted)
		assert.Equal(t, []int{0, 1, 2, 3, 4}, waits)
		assert.Equal(t, []int{0, 1, 2, 3, 4, 5}, decides)
		assert.Equal(t, 6, finishedCalls)
		assert.Equal(t, err, finishedErr)
	})
}

// TestObserverNoHooks: an Observer with no hooks set, or only some, changes
// nothing about Run.
func TestObserverNoHooks(t *testing.T) {
	var finished atomic.Int32
	tests := []struct {
		name string
		obs  reflection.Observer
	}{
		{"no hooks", reflection.Observer{}},
		{"only Finished", reflection.Observer{Finished: func(context.Context, int, reflection.ToolResult, error) { finished.Add(1) }}},
		{"only Corrected", reflection.Observer{Corrected: func(context.Context, int, reflection.Correction, bool, string) {}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool := &fakeTool{fails: 2}
			refl := correctOnce(&reflection.Correction{Type: reflection.InputFix, ModifiedInput: json.RawMessage(`{"p":1}`)})
			d := reflection.NewDriver(reflection.WithReflector(refl), reflection.WithStrategy(retryAfter(0)), reflection.WithObserver(tt.obs))
			got, err := d.Run(context.Background(), testCall, tool.dispatch)
			require.NoError(t, err)
			assert.Equal(t, reflection.ToolResult{ID: "call-1", Content: "ok"}, got)
			calls := tool.Calls()
			require.Len(t, calls, 3)
			assert.JSONEq(t, `{"p":1}`, string(calls[2].Input))
		})
	}
	assert.Equal(t, int32(1), finished.Load(), "Finished called once per Run")
}

// TestObserverLastOptionWins: a later WithObserver replaces an earlier one,
// and an empty Observer removes it.
func TestObserverLastOptionWins(t *testing.T) {
	var first, second int
	one := reflection.Observer{Finished: func(context.Context, int, reflection.ToolResult, error) { first++ }}
	two := reflection.Observer{Finished: func(context.Context, int, reflection.ToolResult, error) { second++ }}
	ok := func(context.Context, reflection.ToolCall) (reflection.ToolResult, error) {
		return reflection.ToolResult{}, nil
	}

	_, _ = reflection.NewDriver(reflection.WithObserver(one), reflection.WithObserver(two)).Run(context.Background(), testCall, ok)
	assert.Equal(t, 0, first)
	assert.Equal(t, 1, second)

	_, _ = reflection.NewDriver(reflection.WithObserver(one), reflection.WithObserver(reflection.Observer{})).Run(context.Background(), testCall, ok)
	assert.Equal(t, 0, first, "an empty Observer removes the earlier one")
}
