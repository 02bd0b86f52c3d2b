package reflection_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopctl-go/reflection"
)

func TestSeverityString(t *testing.T) {
	tests := []struct {
		s    reflection.Severity
		want string
	}{
		{reflection.SeverityLow, "low"},
		{reflection.SeverityMedium, "medium"},
		{reflection.SeverityHigh, "high"},
		{reflection.SeverityCritical, "critical"},
		{reflection.Severity(4), "severity(4)"},
		{reflection.Severity(-1), "severity(-1)"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := tt.s.String(); got != tt.want {
				t.Errorf("Severity(%d).String() = %q, want %q", int(tt.s), got, tt.want)
			}
		})
	}
}

func TestSeverityOrder(t *testing.T) {
	order := []reflection.Severity{
		reflection.SeverityLow, reflection.SeverityMedium,
		reflection.SeverityHigh, reflection.SeverityCritical,
	}
	for i := 1; i < len(order); i++ {
		if !(order[i-1] < order[i]) {
			t.Errorf("%v < %v is false, want true", order[i-1], order[i])
		}
	}
	if reflection.SeverityLow != 0 {
		t.Errorf("SeverityLow = %d, want 0 (the zero value)", int(reflection.SeverityLow))
	}
}

func TestSeverityMarshalText(t *testing.T) {
	tests := []struct {
		name    string
		s       reflection.Severity
		want    string
		wantErr bool
	}{
		{"low", reflection.SeverityLow, "low", false},
		{"medium", reflection.SeverityMedium, "medium", false},
		{"high", reflection.SeverityHigh, "high", false},
		{"critical", reflection.SeverityCritical, "critical", false},
		{"above range", reflection.SeverityCritical + 1, "", true},
		{"negative", reflection.Severity(-1), "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.s.MarshalText()
			if tt.wantErr {
				if err == nil {
					t.Fatalf("MarshalText() = %q, nil; want an error", got)
				}
				return
			}
			if err != nil {
				t.Fatalf("MarshalText() error = %v, want nil", err)
			}
			if string(got) != tt.want {
				t.Errorf("MarshalText() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestSeverityUnmarshalText(t *testing.T) {
	tests := []struct {
		in      string
		want    reflection.Severity
		wantErr bool
	}{
		{"low", reflection.SeverityLow, false},
		{"medium", reflection.SeverityMedium, false},
		{"high", reflection.SeverityHigh, false},
		{"critical", reflection.SeverityCritical, false},
		{"High", 0, true},
		{"CRITICAL", 0, true},
		{" low", 0, true},
		{"low ", 0, true},
		{"", 0, true},
		{"2", 0, true},
		{"severe", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			const sentinel = reflection.Severity(99)
			s := sentinel
			err := s.UnmarshalText([]byte(tt.in))
			if tt.wantErr {
				if err == nil {
					t.Fatalf("UnmarshalText(%q) = nil, %v; want an error", tt.in, s)
				}
				if s != sentinel {
					t.Errorf("UnmarshalText(%q) changed the value to %d on error, want it left as %d", tt.in, int(s), int(sentinel))
				}
				return
			}
			if err != nil {
				t.Fatalf("UnmarshalText(%q) error = %v, want nil", tt.in, err)
			}
			if s != tt.want {
				t.Errorf("UnmarshalText(%q) = %v, want %v", tt.in, s, tt.want)
			}
		})
	}
}

func TestCorrectionTypeUnmarshalText(t *testing.T) {
	tests := []struct {
		in      string
		want    reflection.CorrectionType
		wantErr bool
	}{
		{"input_fix", reflection.InputFix, false},
		{"tool_change", reflection.ToolChange, false},
		{"prerequisite_fix", reflection.PrerequisiteFix, false},
		{"approach_change", reflection.ApproachChange, false},
		{"escalate", reflection.Escalate, false},
		{"InputFix", "", true},
		{"INPUT_FIX", "", true},
		{"input-fix", "", true},
		{"retry", "", true},
		{"", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			ct := reflection.CorrectionType("unchanged")
			err := ct.UnmarshalText([]byte(tt.in))
			if tt.wantErr {
				if err == nil {
					t.Fatalf("UnmarshalText(%q) = nil, %q; want an error", tt.in, ct)
				}
				if ct != "unchanged" {
					t.Errorf("UnmarshalText(%q) changed the value to %q on error", tt.in, ct)
				}
				return
			}
			if err != nil {
				t.Fatalf("UnmarshalText(%q) error = %v, want nil", tt.in, err)
			}
			if ct != tt.want {
				t.Errorf("UnmarshalText(%q) = %q, want %q", tt.in, ct, tt.want)
			}
		})
	}
}

func TestCorrectionTypeValues(t *testing.T) {
	want := map[reflection.CorrectionType]string{
		reflection.InputFix:        "input_fix",
		reflection.ToolChange:      "tool_change",
		reflection.PrerequisiteFix: "prerequisite_fix",
		reflection.ApproachChange:  "approach_change",
		reflection.Escalate:        "escalate",
	}
	for ct, s := range want {
		if string(ct) != s {
			t.Errorf("CorrectionType = %q, want %q", string(ct), s)
		}
	}
}

func TestFailureAnalysisJSONRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		in   reflection.FailureAnalysis
	}{
		{"zero", reflection.FailureAnalysis{}},
		{"no correction", reflection.FailureAnalysis{
			IsRecoverable: true, RootCause: "timed out", Severity: reflection.SeverityLow, Context: "attempt 1 of 6",
		}},
		{"input fix", reflection.FailureAnalysis{
			IsRecoverable: true, RootCause: "bad path", Severity: reflection.SeverityMedium,
			Correction: &reflection.Correction{
				Type: reflection.InputFix, Description: "fix the path",
				ModifiedInput: json.RawMessage(`{"path":"/tmp/a","n":[1,2]}`),
			},
		}},
		{"tool change", reflection.FailureAnalysis{
			IsRecoverable: true, RootCause: "deprecated", Severity: reflection.SeverityHigh,
			Correction: &reflection.Correction{Type: reflection.ToolChange, AlternativeTool: "read_file_v2"},
		}},
		{"escalate with guidance", reflection.FailureAnalysis{
			RootCause: "permission denied", Severity: reflection.SeverityCritical,
			Correction: &reflection.Correction{Type: reflection.Escalate, Description: "d", Guidance: "ask an admin"},
			Context:    "ctx",
		}},
		{"every correction field", reflection.FailureAnalysis{
			IsRecoverable: true, RootCause: "r", Severity: reflection.SeverityMedium,
			Correction: &reflection.Correction{
				Type: reflection.ApproachChange, Description: "d", ModifiedInput: json.RawMessage(`{}`),
				AlternativeTool: "t", Guidance: "g",
			},
			Context: "c",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := json.Marshal(tt.in)
			require.NoError(t, err)
			var got reflection.FailureAnalysis
			require.NoError(t, json.Unmarshal(b, &got), "decoding %s", b)
			assert.Equal(t, tt.in, got, "round trip through %s", b)
		})
	}
}

func TestFailureAnalysisMarshalJSON(t *testing.T) {
	tests := []struct {
		name string
		in   reflection.FailureAnalysis
		want string
	}{
		{
			name: "zero writes every key",
			in:   reflection.FailureAnalysis{},
			want: `{"is_recoverable":false,"root_cause":"","severity":"low","correction":null,"context":""}`,
		},
		{
			name: "absent optional correction fields are null",
			in: reflection.FailureAnalysis{
				IsRecoverable: true, RootCause: "x", Severity: reflection.SeverityCritical,
				Correction: &reflection.Correction{Type: reflection.PrerequisiteFix, Description: "d"},
				Context:    "c",
			},
			want: `{"is_recoverable":true,"root_cause":"x","severity":"critical",` +
				`"correction":{"correction_type":"prerequisite_fix","description":"d",` +
				`"modified_input":null,"alternative_tool":null,"guidance":null},"context":"c"}`,
		},
		{
			name: "present values are written",
			in: reflection.FailureAnalysis{
				Severity: reflection.SeverityMedium,
				Correction: &reflection.Correction{
					Type: reflection.InputFix, ModifiedInput: json.RawMessage(`{"a":1}`),
					AlternativeTool: "t", Guidance: "g",
				},
			},
			want: `{"is_recoverable":false,"root_cause":"","severity":"medium",` +
				`"correction":{"correction_type":"input_fix","description":"",` +
				`"modified_input":{"a":1},"alternative_tool":"t","guidance":"g"},"context":""}`,
		},
		{
			name: "empty modified input is null",
			in: reflection.FailureAnalysis{
				Correction: &reflection.Correction{Type: reflection.InputFix, ModifiedInput: json.RawMessage{}},
			},
			want: `{"is_recoverable":false,"root_cause":"","severity":"low",` +
				`"correction":{"correction_type":"input_fix","description":"",` +
				`"modified_input":null,"alternative_tool":null,"guidance":null},"context":""}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := json.Marshal(tt.in)
			require.NoError(t, err)
			assert.JSONEq(t, tt.want, string(got))
			assert.Equal(t, tt.want, string(got), "key order")
		})
	}
}

func TestFailureAnalysisMarshalJSONInvalidSeverity(t *testing.T) {
	got, err := json.Marshal(reflection.FailureAnalysis{Severity: reflection.SeverityCritical + 1})
	if err == nil {
		t.Fatalf("Marshal with severity 4 = %s, nil; want an error", got)
	}
}

func TestFailureAnalysisUnmarshalJSON(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want reflection.FailureAnalysis
	}{
		{
			name: "null modified_input is nil",
			in: `{"is_recoverable":true,"root_cause":"r","severity":"high","context":"",
				"correction":{"correction_type":"input_fix","description":"d","modified_input":null,"alternative_tool":null,"guidance":null}}`,
			want: reflection.FailureAnalysis{
				IsRecoverable: true, RootCause: "r", Severity: reflection.SeverityHigh,
				Correction: &reflection.Correction{Type: reflection.InputFix, Description: "d"},
			},
		},
		{
			name: "absent optional keys",
			in:   `{"is_recoverable":false,"root_cause":"r","severity":"medium","correction":{"correction_type":"escalate"}}`,
			want: reflection.FailureAnalysis{
				RootCause: "r", Severity: reflection.SeverityMedium,
				Correction: &reflection.Correction{Type: reflection.Escalate},
			},
		},
		{
			name: "null correction",
			in:   `{"is_recoverable":true,"root_cause":"r","severity":"low","correction":null,"context":"c"}`,
			want: reflection.FailureAnalysis{IsRecoverable: true, RootCause: "r", Context: "c"},
		},
		{
			name: "modified_input kept as raw JSON",
			in:   `{"severity":"critical","correction":{"correction_type":"input_fix","modified_input":{"path":"/x"}}}`,
			want: reflection.FailureAnalysis{
				Severity: reflection.SeverityCritical,
				Correction: &reflection.Correction{
					Type: reflection.InputFix, ModifiedInput: json.RawMessage(`{"path":"/x"}`),
				},
			},
		},
		{
			name: "tool change",
			in:   `{"severity":"low","correction":{"correction_type":"tool_change","alternative_tool":"v2","guidance":"g"}}`,
			want: reflection.FailureAnalysis{
				Correction: &reflection.Correction{Type: reflection.ToolChange, AlternativeTool: "v2", Guidance: "g"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got reflection.FailureAnalysis
			require.NoError(t, json.Unmarshal([]byte(tt.in), &got))
			assert.Equal(t, tt.want, got)
			if got.Correction != nil && tt.want.Correction.ModifiedInput == nil {
				assert.Nil(t, got.Correction.ModifiedInput, "ModifiedInput must be nil, not the bytes null")
			}
		})
	}
}

func TestFailureAnalysisUnmarshalJSONErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
	}{
		{"severity capitalised", `{"severity":"High"}`},
		{"severity unknown", `{"severity":"severe"}`},
		{"severity number", `{"severity":2}`},
		{"severity empty", `{"severity":""}`},
		{"correction_type unknown", `{"severity":"low","correction":{"correction_type":"retry"}}`},
		{"correction_type capitalised", `{"severity":"low","correction":{"correction_type":"Input_Fix"}}`},
		{"correction_type missing", `{"severity":"low","correction":{"description":"d"}}`},
		{"correction_type null", `{"severity":"low","correction":{"correction_type":null}}`},
		{"correction not an object", `{"severity":"low","correction":"input_fix"}`},
		{"not JSON", `{"severity":`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got reflection.FailureAnalysis
			if err := json.Unmarshal([]byte(tt.in), &got); err == nil {
				t.Errorf("Unmarshal(%s) = nil error, %+v; want an error", tt.in, got)
			}
		})
	}
}

func TestCorrectionJSONRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		in   reflection.Correction
		want string
	}{
		{
			name: "input fix",
			in:   reflection.Correction{Type: reflection.InputFix, Description: "d", ModifiedInput: json.RawMessage(`{"a":[1,"b"]}`)},
			want: `{"correction_type":"input_fix","description":"d","modified_input":{"a":[1,"b"]},"alternative_tool":null,"guidance":null}`,
		},
		{
			name: "tool change",
			in:   reflection.Correction{Type: reflection.ToolChange, AlternativeTool: "grep"},
			want: `{"correction_type":"tool_change","description":"","modified_input":null,"alternative_tool":"grep","guidance":null}`,
		},
		{
			name: "approach change",
			in:   reflection.Correction{Type: reflection.ApproachChange, Guidance: "list the directory first"},
			want: `{"correction_type":"approach_change","description":"","modified_input":null,"alternative_tool":null,"guidance":"list the directory first"}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := json.Marshal(tt.in)
			require.NoError(t, err)
			assert.Equal(t, tt.want, string(b))
			var got reflection.Correction
			require.NoError(t, json.Unmarshal(b, &got))
			assert.Equal(t, tt.in, got)
		})
	}
}

// FuzzFailureAnalysisJSON feeds arbitrary text, as a model might produce, to
// the decoder: it must never panic, and whatever it accepts must encode and
// decode back to the same value.
func FuzzFailureAnalysisJSON(f *testing.F) {
	seeds := []string{
		`{"is_recoverable":true,"root_cause":"r","severity":"high","correction":null,"context":""}`,
		`{"severity":"low","correction":{"correction_type":"input_fix","modified_input":{"a":1}}}`,
		`{"severity":"low","correction":{"correction_type":"input_fix","modified_input":null}}`,
		`{"severity":"critical","correction":{"correction_type":"tool_change","alternative_tool":"x","guidance":null}}`,
		`{"severity":"High"}`,
		`{"severity":3}`,
		`{"correction":{}}`,
		`null`,
		`[]`,
		``,
	}
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		var a reflection.FailureAnalysis
		if err := json.Unmarshal([]byte(in), &a); err != nil {
			return
		}
		b, err := json.Marshal(a)
		if err != nil {
			t.Fatalf("Marshal of decoded %q: %v", in, err)
		}
		var back reflection.FailureAnalysis
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("Unmarshal of re-encoded %s: %v", b, err)
		}
		if a.Correction != nil && a.Correction.ModifiedInput != nil {
			// encoding/json compacts raw values when it writes them; compare
			// the rest exactly and ModifiedInput as JSON.
			assert.JSONEq(t, string(a.Correction.ModifiedInput), string(back.Correction.ModifiedInput))
			a.Correction.ModifiedInput, back.Correction.ModifiedInput = nil, nil
		}
		assert.Equal(t, a, back)
	})
}
