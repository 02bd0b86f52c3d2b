package recovery

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"time"

	"github.com/loopctl-go/reflection"
)

// classPattern is the form of a class name: the seven named classes and any
// other a scenario file brings.
var classPattern = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// synctestEpoch is the instant every synctest bubble starts at; a Retry-After
// date is read against it.
var synctestEpoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// maxRepeat bounds a scenario's repeat, so a typo cannot make a run endless;
// maxReissue bounds its re-issues, and maxSeconds every time it gives.
const (
	maxRepeat  = 1000
	maxReissue = 10
	maxSeconds = 24 * 60 * 60
)

// loadScenarios reads a scenario file. Every line is one scenario; blank
// lines are skipped. Unknown fields, missing required fields, bad values and
// duplicate ids are errors that name the line.
func loadScenarios(path string) ([]*scenario, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readScenarios(f, path)
}

// readScenarios is loadScenarios for any reader; name is used in errors.
func readScenarios(r io.Reader, name string) ([]*scenario, error) {
	var out []*scenario
	seen := map[string]int{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		s, err := parseScenario(line)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, n, err)
		}
		if first, dup := seen[s.ID]; dup {
			return nil, fmt.Errorf("%s:%d: id %q already used on line %d", name, n, s.ID, first)
		}
		seen[s.ID] = n
		s.line = n
		out = append(out, s)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no scenarios", name)
	}
	return out, nil
}

// parseScenario decodes and checks one line.
func parseScenario(line []byte) (*scenario, error) {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	s := &scenario{}
	if err := dec.Decode(s); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("text after the scenario's object")
	}
	if err := s.validate(); err != nil {
		if s.ID != "" {
			return nil, fmt.Errorf("scenario %q: %w", s.ID, err)
		}
		return nil, err
	}
	return s, nil
}

// validate checks every field's value and fills the derived fields. Whether
// the scenario can end as it says is checkConsistent's question.
func (s *scenario) validate() error {
	switch {
	case s.ID == "":
		return errors.New("missing id")
	case s.Class == "":
		return errors.New("missing class")
	case !classPattern.MatchString(s.Class):
		return fmt.Errorf("bad class %q (want lower-case letters, digits and _)", s.Class)
	case len(s.Tools) == 0:
		return errors.New("missing tools")
	case s.Right != rightSucceed && s.Right != rightNoRetry:
		return fmt.Errorf("bad right %q (want %q or %q)", s.Right, rightSucceed, rightNoRetry)
	case s.Repeat < 0 || s.Repeat > maxRepeat:
		return fmt.Errorf("bad repeat %d (want 1 to %d)", s.Repeat, maxRepeat)
	case s.Permanent && len(s.Faults) == 0:
		return errors.New("permanent needs at least one fault to repeat")
	case s.Concurrency < 0 || s.Concurrency > max(s.Repeat, 1):
		return fmt.Errorf("bad concurrency %d (want 1 to the repeat, %d)", s.Concurrency, max(s.Repeat, 1))
	case s.Reissue < 0 || s.Reissue > maxReissue:
		return fmt.Errorf("bad reissue %d (want 0 to %d)", s.Reissue, maxReissue)
	case s.RecoversAfterS != 0 && !s.Permanent:
		return errors.New("recovers_after_s needs a permanent scenario (its fault stops then)")
	}
	var err error
	if s.gap, err = seconds("gap_s", s.GapS); err != nil {
		return err
	}
	if s.heal, err = seconds("recovers_after_s", s.RecoversAfterS); err != nil {
		return err
	}
	s.calls = max(s.Repeat, 1)
	s.agents = max(s.Concurrency, 1)
	if err := s.validateTools(); err != nil {
		return err
	}
	if s.Call.Name == "" {
		return errors.New("missing call.name")
	}
	if err := isObject(s.Call.Input); err != nil {
		return fmt.Errorf("call.input: %w", err)
	}
	accept := acceptSpec{Tool: s.Call.Name, Input: s.Call.Input}
	if s.Accept != nil {
		accept = *s.Accept
		if accept.Tool == "" {
			return errors.New("missing accept.tool")
		}
		if err := isObject(accept.Input); err != nil {
			return fmt.Errorf("accept.input: %w", err)
		}
	}
	in, err := canonical(accept.Input)
	if err != nil {
		return fmt.Errorf("accept.input: %w", err)
	}
	s.accept = pair{tool: accept.Tool, input: in}
	if r := s.Reject; r != nil {
		if r.Error == "" {
			return errors.New("missing reject.error")
		}
		if err := checkStatus(r.Status); err != nil {
			return fmt.Errorf("reject: %w", err)
		}
	}
	for i := range s.Faults {
		if err := s.Faults[i].validate(s.AsResult); err != nil {
			return fmt.Errorf("faults[%d]: %w", i, err)
		}
	}
	if s.Fix != nil {
		if err := s.Fix.validate(); err != nil {
			return fmt.Errorf("fix: %w", err)
		}
	}
	return nil
}

// validateTools checks the tools and fills s.tools.
func (s *scenario) validateTools() error {
	s.tools = make([]tool, len(s.Tools))
	for i, t := range s.Tools {
		if t.Name == "" {
			return fmt.Errorf("tools[%d]: missing name", i)
		}
		for _, u := range s.Tools[:i] {
			if u.Name == t.Name {
				return fmt.Errorf("tools[%d]: tool %q listed twice", i, t.Name)
			}
		}
		schema := t.InputSchema
		if len(schema) == 0 {
			schema = json.RawMessage(`{"type":"object"}`)
		}
		if err := isObject(schema); err != nil {
			return fmt.Errorf("tools[%d].input_schema: %w", i, err)
		}
		s.tools[i] = tool{
			schema:     reflection.ToolSchema{Name: t.Name, Description: t.Description, InputSchema: schema},
			effect:     t.Effect,
			verifiable: t.Verifiable,
		}
	}
	return nil
}

// validate checks a fault; asResult says the scenario's faults come back
// as failure results, which carry nothing but their text.
func (f *faultSpec) validate(asResult bool) error {
	if f.Error == "" {
		return errors.New("missing error")
	}
	if asResult && (f.Status != 0 || f.RetryAfter != "" || f.NoEffect) {
		return errors.New("a failure result (as_result) carries no status, retry_after or no_effect")
	}
	var err error
	if f.hold, err = seconds("for_s", f.ForS); err != nil {
		return err
	}
	if err := checkStatus(f.Status); err != nil {
		return err
	}
	if f.RetryAfter != "" {
		if _, ok := reflection.ParseRetryAfter(f.RetryAfter, synctestEpoch); !ok {
			return fmt.Errorf("bad retry_after %q (want delta-seconds or an HTTP date)", f.RetryAfter)
		}
	}
	if f.NoEffect && f.Commits {
		return errors.New("a fault cannot both commit and have no effect")
	}
	return nil
}

func (f *fixSpec) validate() error {
	switch f.Type {
	case "":
		return errors.New("missing correction_type")
	case reflection.InputFix:
		if err := isObject(f.ModifiedInput); err != nil {
			return fmt.Errorf("modified_input: %w", err)
		}
	case reflection.ToolChange:
		if f.AlternativeTool == "" {
			return errors.New("a tool_change needs alternative_tool")
		}
	}
	return nil
}

// seconds turns a field's virtual seconds, 0 to maxSeconds, into a
// duration rounded to the millisecond.
func seconds(field string, s float64) (time.Duration, error) {
	if !(s >= 0 && s <= maxSeconds) {
		return 0, fmt.Errorf("bad %s %v (want 0 to %d seconds)", field, s, maxSeconds)
	}
	return time.Duration(math.Round(s*1000)) * time.Millisecond, nil
}

// checkStatus accepts 0 (none) and the HTTP status range.
func checkStatus(s int) error {
	if s != 0 && (s < 100 || s > 599) {
		return fmt.Errorf("bad status %d (want 100 to 599)", s)
	}
	return nil
}

// isObject reports an error unless raw is a JSON object.
func isObject(raw json.RawMessage) error {
	if len(raw) == 0 {
		return errors.New("missing (want a JSON object)")
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return fmt.Errorf("not a JSON object: %s", raw)
	}
	return nil
}
