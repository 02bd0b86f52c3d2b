package reflection

import (
	"encoding/json"
	"testing"
)

// TestScanObject: scanObject asks jsonscan.Scan (fuzzed as FuzzScan against
// encoding/json) two questions; a repeated key counts only in a valid object.
func TestScanObject(t *testing.T) {
	tests := []struct {
		in          string
		object, dup bool
	}{
		{`{"a":1}`, true, false},
		{` {"a":{"b":1,"B":2}} `, true, true},
		{`{"k":1,"\u212a":2}`, true, true},
		{`[{"a":1,"a":2}]`, false, false},
		{`{"a":1,"A":2`, false, false},
		{`{"a":1} {}`, false, false},
		{``, false, false},
	}
	for _, tt := range tests {
		object, dup := scanObject([]byte(tt.in))
		if object != tt.object || dup != tt.dup {
			t.Errorf("scanObject(%q) = %v, %v; want %v, %v", tt.in, object, dup, tt.object, tt.dup)
		}
	}
}

// BenchmarkScanObject: one pass against json.Valid alone, on the size of a
// typical corrected input.
func BenchmarkScanObject(b *testing.B) {
	in := []byte(`{"path":"docs/notes.md","mode":"r","limit":100,"tags":["a","b"]}`)
	b.Run("scanObject", func(b *testing.B) {
		for b.Loop() {
			scanObject(in)
		}
	})
	b.Run("json.Valid", func(b *testing.B) {
		for b.Loop() {
			json.Valid(in)
		}
	})
}
