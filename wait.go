package reflection

import (
	"context"
	"fmt"
	"time"
)

// wait sleeps delay (negative counts as 0) unless ctx ends first. It refuses
// at once a wait that would end at or after ctx's deadline: nothing could
// run after it.
func (d *Driver) wait(ctx context.Context, attempt int, delay time.Duration) error {
	delay = max(delay, 0)
	if obs := d.observer; obs != nil && obs.Waiting != nil {
		obs.Waiting(ctx, attempt, delay)
	}
	if delay == 0 {
		return nil
	}
	if ctx.Err() != nil {
		// Already cancelled: report that, not the deadline that a wait
		// would also have passed.
		return stopError(ctx)
	}
	if deadline, ok := ctx.Deadline(); ok && !deadline.After(time.Now().Add(delay)) {
		return fmt.Errorf("reflection: retry in %v would end past the context deadline: %w", delay, context.DeadlineExceeded)
	}
	t := time.NewTimer(delay)
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		t.Stop()
		return stopError(ctx)
	}
}
