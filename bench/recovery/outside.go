package recovery

import (
	"context"
	"sync"
	"time"

	"github.com/loopctl-go/reflection"
)

// Outside returns a Reflector that hands every analysis to r on goroutines
// started here, outside any synctest bubble, so that a Reflector that does
// I/O (a model's HTTP client, with its connection pool and timers) can be
// benchmarked: inside a bubble its goroutines would outlive the run, and its
// timeouts would run on virtual time. Each analysis gets a ctx of its own
// with the given timeout (0: none), not the call's, whose channels belong to
// the bubble. workers analyses run at once (at least 1). stop ends the
// goroutines; call it once the benchmark is done, never during it.
//
// A call that waits for r is not durably blocked, so virtual time does not
// pass while the model thinks: the benchmark measures the recovery, not the
// model's latency.
func Outside(r reflection.Reflector, workers int, timeout time.Duration) (proxy reflection.Reflector, stop func()) {
	workers = max(workers, 1)
	o := &outside{
		requests: make(chan outsideRequest),
		free:     make(chan int, workers),
		replies:  make([]chan outsideReply, workers),
		done:     make(chan struct{}),
	}
	for i := range workers {
		o.replies[i] = make(chan outsideReply, 1)
		o.free <- i
	}
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				select {
				case <-o.done:
					return
				case req := <-o.requests:
					ctx, cancel := context.Background(), context.CancelFunc(func() {})
					if timeout > 0 {
						ctx, cancel = context.WithTimeout(ctx, timeout)
					}
					a, err := analyzeSafely(ctx, r, req.f)
					cancel()
					o.replies[req.slot] <- outsideReply{a, err}
				}
			}
		})
	}
	var once sync.Once
	return o, func() {
		once.Do(func() {
			close(o.done)
			wg.Wait()
		})
	}
}

// outside is the proxy Outside returns. Every channel it uses was made
// outside the bubbles, so goroutines on either side may use them.
type outside struct {
	requests chan outsideRequest
	free     chan int // reply slots not in use
	replies  []chan outsideReply
	done     chan struct{}
}

type outsideRequest struct {
	f    reflection.Failure
	slot int
}

type outsideReply struct {
	a   reflection.FailureAnalysis
	err error
}

func (o *outside) Analyze(_ context.Context, f reflection.Failure) (reflection.FailureAnalysis, error) {
	slot := <-o.free
	defer func() { o.free <- slot }()
	o.requests <- outsideRequest{f: f, slot: slot}
	rep := <-o.replies[slot]
	return rep.a, rep.err
}

// analyzeSafely asks r, turning a panic into an error as the Driver would.
func analyzeSafely(ctx context.Context, r reflection.Reflector, f reflection.Failure) (a reflection.FailureAnalysis, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &reflection.PanicError{Where: "reflector", Value: v}
		}
	}()
	return r.Analyze(ctx, f)
}
