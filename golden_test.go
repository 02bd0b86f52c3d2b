package reflection_test

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// updateGolden rewrites the golden files from the current output:
//
//	go test -run TestName -update .
var updateGolden = flag.Bool("update", false, "rewrite the golden files in testdata")

// assertGolden compares got with the golden file at path.
func assertGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *updateGolden {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, got, 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "no golden file; run the test with -update to write it")
	assert.Equal(t, string(want), string(got), "output differs from %s (run with -update to accept it)", path)
}
