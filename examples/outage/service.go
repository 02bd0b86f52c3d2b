package main

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/loopctl-go/reflection"
)

// service is the dependency behind the get_stock tool: it answers after a
// short latency, except between downFrom and downUntil after it starts, when
// it answers 503. It counts every dispatch that reaches it. It is safe for
// concurrent use.
type service struct {
	start               time.Time
	downFrom, downUntil time.Duration
	latency             time.Duration

	dispatches atomic.Int64 // every dispatch that reached the service
	whileDown  atomic.Int64 // those that reached it while it was down
}

func newService(downFrom, downUntil, latency time.Duration) *service {
	return &service{start: time.Now(), downFrom: downFrom, downUntil: downUntil, latency: latency}
}

// down reports whether the service is down now.
func (s *service) down() bool {
	since := time.Since(s.start)
	return since >= s.downFrom && since < s.downUntil
}

// back reports whether the service has come back from its outage.
func (s *service) back() bool { return time.Since(s.start) >= s.downUntil }

// dispatch is the get_stock tool: one request to the service.
func (s *service) dispatch(ctx context.Context, call reflection.ToolCall) (reflection.ToolResult, error) {
	s.dispatches.Add(1)
	down := s.down()
	if down {
		s.whileDown.Add(1)
	}
	t := time.NewTimer(s.latency)
	select {
	case <-t.C:
	case <-ctx.Done():
		t.Stop()
		return reflection.ToolResult{}, ctx.Err()
	}
	if down {
		return reflection.ToolResult{}, errors.New("inventory service: 503 Service Unavailable")
	}
	return reflection.ToolResult{ID: call.ID, Content: "12 in stock"}, nil
}
