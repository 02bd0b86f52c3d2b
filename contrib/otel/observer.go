package reflectionotel

import (
	"context"

	"github.com/loopctl-go/reflection"
)

// Observer returns the hooks through which t traces and measures every call
// of a Driver that has them, whichever code runs the call: Driver.Run, an
// adapter of another module (an MCP session, a framework's tool node), or a
// Driver a tool runs inside its own attempt. It is the one wiring point:
//
//	d := reflection.NewDriver(reflection.WithObserver(tel.Observer()))
//
// A Driver keeps one Observer; join t's with the host's own, in either
// order, with reflection.JoinObservers. CallStart starts the call's span and
// returns the context the call runs under; AttemptStart starts an attempt's
// span and returns the context the dispatch receives, so the tool's own
// spans nest under it; DispatchDone ends it; Ended ends the call's span.
// The other hooks record events and metrics. Each hook acts only on a call
// whose CallStart was t's, so two Telemetries joined in one Driver each
// record the call once. A nil t gives an empty Observer.
func (t *Telemetry) Observer() reflection.Observer {
	if t.off() {
		return reflection.Observer{}
	}
	return reflection.Observer{
		CallStart:      t.callStart,
		AttemptStart:   t.attemptStart,
		DispatchDone:   t.dispatchDone,
		Analyzed:       t.analyzed,
		Decided:        t.decided,
		Waiting:        t.waiting,
		Corrected:      t.corrected,
		Asked:          t.asked,
		Ended:          t.ended,
		BreakerChanged: t.breakerChanged,
		Remembered:     t.remembered,
		Verified:       t.verified,
	}
}

// callKey is the context key under which t keeps the call it traces: a key
// per Telemetry, so that Telemetries joined in one Driver never share one.
type callKey struct{ t *Telemetry }

// callOf returns the call of ctx that t started, or nil.
func (t *Telemetry) callOf(ctx context.Context) *call {
	c, _ := ctx.Value(callKey{t}).(*call)
	return c
}
