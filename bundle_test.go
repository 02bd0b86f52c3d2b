package reflection_test

import (
	"bytes"
	"os"
	"testing"

	"github.com/loopctl-go/reflection/internal/bundle"
)

// TestBundleIsCurrent: bundle.go is what internal/cmd/bundle writes from
// the internal packages, so the root's copy of them never drifts.
func TestBundleIsCurrent(t *testing.T) {
	want, err := bundle.Generate(".")
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(bundle.File)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is not what the internal packages make; write it anew: go run ./internal/cmd/bundle", bundle.File)
	}
}
