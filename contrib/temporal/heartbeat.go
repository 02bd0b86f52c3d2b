package reflectiontemporal

import (
	"context"
	"time"

	"go.temporal.io/sdk/activity"
)

// heartbeat heartbeats for the activity of ctx every half of its
// HeartbeatTimeout, the first time half a timeout after it starts, until
// stop is called; stop returns once the heartbeats have stopped. A tool
// that returns within half the timeout costs no heartbeat; a longer one
// costs one about every 0.8 timeout (the SDK holds back the ones between).
// The heartbeats tell the server that the worker is alive, so a worker
// that dies is noticed a HeartbeatTimeout after its last one, and their
// answers bring a cancel of the workflow to ctx. Without a HeartbeatTimeout
// it does nothing.
func heartbeat(ctx context.Context) (stop func()) {
	timeout := activity.GetInfo(ctx).HeartbeatTimeout
	if timeout <= 0 {
		return func() {}
	}
	quit, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		tick := time.NewTicker(max(timeout/2, time.Millisecond))
		defer tick.Stop()
		for {
			select {
			case <-quit:
				return
			case <-ctx.Done():
				return
			case <-tick.C:
				activity.RecordHeartbeat(ctx)
			}
		}
	}()
	return func() {
		close(quit)
		<-stopped
	}
}
