package reflection

import "encoding/json"

// InputChecker is a Reflector that can also check a corrected call against
// the schema of the tool it is about to run: the llm package's Reflector is
// one. InputCheck returns such a check over lookup, or nil when it has none.
//
// A Reflector that proposes an InputFix checks it against the schema of the
// tool that failed; a later ToolChange (or one that came first) can then
// bring that input to a tool it was never checked against. So a Driver
// given WithSchemas and no WithInputCheck uses its Reflector's check, when
// the Reflector is an InputChecker, on every corrected call before it runs
// (see WithInputCheck). Chain and NewCache are InputCheckers when a
// Reflector they hold is one.
type InputChecker interface {
	InputCheck(lookup SchemaLookup) func(tool string, input json.RawMessage) error
}

// reflectorCheck returns r's input check over lookup, or nil when r is not
// an InputChecker, has none, or panics.
func reflectorCheck(r Reflector, lookup SchemaLookup) (check func(string, json.RawMessage) error) {
	ic, ok := r.(InputChecker)
	if !ok || lookup == nil {
		return nil
	}
	defer func() {
		if recover() != nil {
			check = nil
		}
	}()
	return ic.InputCheck(lookup)
}

// InputCheck returns a check that passes a call only when every reflector
// of the chain that has an input check passes it; nil when none has one.
func (c chain) InputCheck(lookup SchemaLookup) func(tool string, input json.RawMessage) error {
	var checks []func(string, json.RawMessage) error
	for _, r := range c {
		if check := reflectorCheck(r, lookup); check != nil {
			checks = append(checks, check)
		}
	}
	switch len(checks) {
	case 0:
		return nil
	case 1:
		return checks[0]
	}
	return func(tool string, input json.RawMessage) error {
		for _, check := range checks {
			if err := check(tool, input); err != nil {
				return err
			}
		}
		return nil
	}
}

// InputCheck returns the wrapped Reflector's input check, or nil.
func (c *cache) InputCheck(lookup SchemaLookup) func(tool string, input json.RawMessage) error {
	return reflectorCheck(c.r, lookup)
}
