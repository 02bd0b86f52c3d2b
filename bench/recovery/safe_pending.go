//go:build !recoverysafe

package recovery

import (
	"errors"

	"github.com/loopctl-go/reflection"
)

// safetyReady reports whether the root package has the safety options the
// *_safe configurations turn on. Until it does, those configurations are
// reported as pending and this file stands in for safe.go (build it
// with -tags recoverysafe once the options exist).
const safetyReady = false

// sharedState is what the calls of one scenario run share; nothing yet.
type sharedState struct{}

func newSharedState() *sharedState { return &sharedState{} }

// safeOptions returns only what the root package has of the safety options:
// the schemas of the scenario's tools.
func safeOptions(sc *scenario, _ *sharedState) []reflection.Option {
	return []reflection.Option{reflection.WithSchemas(sc.lookup)}
}

// noEffectMark stands in for reflection's no-effect sentinel.
var noEffectMark = errors.New("recovery: the attempt had no effect")

// noEffect marks err as the failure of an attempt that had no effect: the
// tool refused before it acted.
func noEffect(err error) error { return &markedError{err, noEffectMark} }
