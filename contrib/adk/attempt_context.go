package reflectionadk

import (
	"context"
	"time"

	"google.golang.org/adk/v2/agent"
)

// attemptContext is ADK's tool context for one attempt, with the ctx the
// Driver gave the attempt in place of its own: the attempt's span (so the
// tool's spans nest under it), its timeout and its cancellation. ADK's tool
// context cannot be derived from (its WithContext is not supported), so the
// four methods of context.Context are taken from ctx, and everything else of
// agent.Context stays ADK's. The Driver's ctx derives from ADK's, so every
// value ADK put in its context is still found.
type attemptContext struct {
	agent.Context
	ctx context.Context
}

func (c attemptContext) Deadline() (time.Time, bool) { return c.ctx.Deadline() }

func (c attemptContext) Done() <-chan struct{} { return c.ctx.Done() }

func (c attemptContext) Err() error { return c.ctx.Err() }

func (c attemptContext) Value(key any) any { return c.ctx.Value(key) }
