package recovery

import (
	"encoding/json"
	"time"

	"github.com/loopctl-go/reflection"
)

// defaultScenarios is the committed scenario set; RECOVERY_SCENARIOS names
// another file.
const defaultScenarios = "testdata/scenarios.jsonl"

// scenario is one line of a scenario file: a tool call, the world it runs
// in, and how it should end.
type scenario struct {
	ID        string      `json:"id"`
	Class     string      `json:"class"`
	Source    string      `json:"source,omitempty"` // whose wording the failure texts follow
	Tools     []toolSpec  `json:"tools"`
	Call      callSpec    `json:"call"`
	Accept    *acceptSpec `json:"accept,omitempty"` // omitted: the call itself
	Reject    *rejectSpec `json:"reject,omitempty"`
	Faults    []faultSpec `json:"faults,omitempty"`
	Result    string      `json:"result"`
	Permanent bool        `json:"permanent"`
	Repeat    int         `json:"repeat,omitempty"` // 0 in the file means 1
	Fix       *fixSpec    `json:"fix,omitempty"`
	Right     string      `json:"right"`

	// The second version's fields; each is optional, and its zero value
	// keeps a first-version scenario's meaning.
	GapS           float64 `json:"gap_s,omitempty"`            // virtual seconds between the starts of successive calls
	Concurrency    int     `json:"concurrency,omitempty"`      // agents sharing the repeats; 0 in the file means 1
	RecoversAfterS float64 `json:"recovers_after_s,omitempty"` // a permanent fault stops this many seconds after t = 0
	Reissue        int     `json:"reissue,omitempty"`          // times the model issues a call again after it ends without success
	AsResult       bool    `json:"as_result,omitempty"`        // faults come back as failure results, not errors

	line   int           // where the scenario was read
	accept pair          // the one (tool, input) that can succeed, input canonical
	calls  int           // Repeat, at least 1
	agents int           // Concurrency, at least 1
	gap    time.Duration // GapS
	heal   time.Duration // RecoversAfterS; 0 when the fault never stops
	tools  []tool        // Tools, checked
}

// toolSpec is a tool as the host registered it.
type toolSpec struct {
	Name        string            `json:"name"`
	Description string            `json:"description"`
	InputSchema json.RawMessage   `json:"input_schema,omitempty"`
	Effect      reflection.Effect `json:"effect,omitempty"`     // omitted: undeclared
	Verifiable  bool              `json:"verifiable,omitempty"` // the host can look the tool's effect up
}

// callSpec is the call the model made.
type callSpec struct {
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

// acceptSpec is the one (tool, input) that can succeed.
type acceptSpec struct {
	Tool  string          `json:"tool"`
	Input json.RawMessage `json:"input"`
}

// rejectSpec is how the tools refuse any other call.
type rejectSpec struct {
	Error  string `json:"error"`
	Status int    `json:"status,omitempty"`
}

// faultSpec is one failed dispatch of the accepted call.
type faultSpec struct {
	Error      string `json:"error"`
	Status     int    `json:"status,omitempty"`
	RetryAfter string `json:"retry_after,omitempty"` // a Retry-After header value
	Timeout    bool   `json:"timeout,omitempty"`
	Commits    bool   `json:"commits,omitempty"`   // the side effect happened anyway
	NoEffect   bool   `json:"no_effect,omitempty"` // refused before anything happened

	// ForS holds the fault for that many virtual seconds: every dispatch
	// before ForS seconds have passed since the first one that met it meets
	// it again (a rate limit's window, whose wait the text states).
	ForS float64 `json:"for_s,omitempty"`

	hold time.Duration // ForS
}

// fixSpec is the correction a perfect analysis proposes; the wire shape of
// reflection.Correction, decoded strictly.
type fixSpec struct {
	Type            reflection.CorrectionType `json:"correction_type"`
	Description     string                    `json:"description"`
	ModifiedInput   json.RawMessage           `json:"modified_input,omitempty"`
	AlternativeTool string                    `json:"alternative_tool,omitempty"`
	Guidance        string                    `json:"guidance,omitempty"`
}

// correction returns the fix as the Reflector hands it to the Driver.
func (f *fixSpec) correction() reflection.Correction {
	return reflection.Correction{
		Type:            f.Type,
		Description:     f.Description,
		ModifiedInput:   f.ModifiedInput,
		AlternativeTool: f.AlternativeTool,
		Guidance:        f.Guidance,
	}
}

// The two endings a scenario can call right.
const (
	rightSucceed = "succeed"  // the call ends in success
	rightNoRetry = "no_retry" // it ends without success and without a second dispatch
)

// duplicates reports whether a second effect of a tool with effect e counts
// as harm: it does for a tool that is not idempotent or says nothing, and
// for a keyed tool (whose ledger counts a repeated key as no new effect).
func duplicates(e reflection.Effect) bool {
	return e == reflection.EffectUndeclared || e == reflection.EffectNonIdempotent || e == reflection.EffectKeyed
}

// tool is a checked toolSpec.
type tool struct {
	schema     reflection.ToolSchema
	effect     reflection.Effect
	verifiable bool
}

// pair is a (tool, input) with the input in canonical form, so that two
// inputs that are the same JSON value compare equal.
type pair struct {
	tool  string
	input string
}

// canonical returns the JSON value of raw re-encoded with sorted keys and no
// insignificant space: two texts of one value give the same string.
func canonical(raw json.RawMessage) (string, error) {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return "", err
	}
	b, err := json.Marshal(v)
	return string(b), err
}

// toolNamed returns the scenario's tool called name.
func (s *scenario) toolNamed(name string) (tool, bool) {
	for _, t := range s.tools {
		if t.schema.Name == name {
			return t, true
		}
	}
	return tool{}, false
}

// lookup is the scenario's tools as a reflection.SchemaLookup.
func (s *scenario) lookup(name string) (reflection.ToolSchema, bool) {
	t, ok := s.toolNamed(name)
	return t.schema, ok
}
