package reflection

import (
	"encoding/json"
	"time"
)

// settings are the rules one Recovery follows. A Driver holds them and hands
// each Recovery a copy, so the machine never refers to its Driver.
type settings struct {
	strategy   RecoveryStrategy
	schemas    SchemaLookup
	allowTool  func(from, to string) bool
	inputCheck func(tool string, input json.RawMessage) error
	maxFixSize int                      // 0 means DefaultMaxCorrectedInput; negative means no limit
	maxHint    time.Duration            // 0 means DefaultMaxRetryAfter
	canAsk     bool                     // AskUser yields an AskStep
	notes      bool                     // WithRecoveryNotes
	effect     func(tool string) Effect // WithEffects; nil: the effect guard is off
	loopGuard  bool                     // WithLoopGuard
	verifier   verifyFunc               // WithVerifier; nil: the guard asks. The machine only asks for a VerifyStep
}

// defaultStrategy is the strategy of a Driver without one, stored as an
// interface value once, so using it costs no allocation.
var defaultStrategy RecoveryStrategy = NewExponentialBackoff(3)

func (s *settings) strategyOrDefault() RecoveryStrategy {
	if s.strategy == nil {
		return defaultStrategy
	}
	return s.strategy
}

func (s *settings) fixLimit() int {
	if s.maxFixSize == 0 {
		return DefaultMaxCorrectedInput
	}
	return s.maxFixSize
}

func (s *settings) hintCap() time.Duration {
	if s.maxHint <= 0 {
		return DefaultMaxRetryAfter
	}
	return s.maxHint
}
