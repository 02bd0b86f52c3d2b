package apisnapshot_test

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopctl-go/reflection/internal/apisnapshot"
)

// TestSnapshotIsCurrent fails when the exported API of a module of this
// repository differs from its list under api/: an exported name added,
// removed or changed without the list says so here, line by line.
func TestSnapshotIsCurrent(t *testing.T) {
	wd, err := os.Getwd()
	require.NoError(t, err)
	root, err := apisnapshot.FindRoot(wd, "github.com/loopctl-go/reflection")
	require.NoError(t, err)
	diff, err := apisnapshot.Diff(root)
	require.NoError(t, err)
	files := make([]string, 0, len(diff))
	for f := range diff {
		files = append(files, f)
	}
	sort.Strings(files)
	for _, f := range files {
		t.Errorf("%s differs from the exported API (+ added, - removed):\n\t%s", f, strings.Join(diff[f], "\n\t"))
	}
	if len(files) > 0 {
		t.Log("if the change is meant, write the lists anew: go run ./internal/cmd/apisnapshot -w")
	}
}

// writeTree writes files (path: content) under a new directory and returns it.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
	return dir
}

const sample = `package lib

import (
	"context"
	"errors"
	"time"
)

// Kind is typed.
type Kind int

const (
	KindA Kind = iota + 1
	KindB
	kindHidden
	KindC
)

const (
	Limit    = 1 << 10
	Name     = "x"
	Delay    = 3 * time.Second
	unlisted = 2
)

var ErrGone = errors.New("gone")

var Default = &Options{}

var Hook func(ctx context.Context, n int) error

type Options struct {
	Timeout time.Duration
	hidden  int
	Inner
	*Other
	On func(ctx context.Context, name string) (ok bool, err error)
}

type Inner struct{ A, B string }

type Other struct{}

type Doer interface {
	Do(ctx context.Context, n int) error
	fmt() string
	Inner2
}

type Inner2 interface{ Less(other Inner2) bool }

type Alias = Options

type List[T any] struct{ Items []T }

func (l *List[T]) Add(v T) {}

func (o Options) String() string { return "" }

func (o *Options) hidden2() {}

func New(timeout time.Duration, names ...string) (*Options, error) { return nil, nil }

func Map[T, U any](in []T, f func(T) U) []U { return nil }

func unexported() {}

type hiddenType struct{}

func (hiddenType) Exported() {}
`

func TestScanLines(t *testing.T) {
	root := writeTree(t, map[string]string{
		"go.mod":               "module example.com/repo\n\ngo 1.25\n",
		"lib/lib.go":           sample,
		"lib/lib_test.go":      "package lib\n\nfunc TestOnly() {}\n",
		"lib/plan9.go":         "//go:build plan9\n\npackage lib\n\nfunc Plan9Only() {}\n",
		"internal/x/x.go":      "package x\n\nfunc Hidden() {}\n",
		"cmd/tool/main.go":     "package main\n\nfunc Exported() {}\n",
		"testdata/t/t.go":      "package t\n\nfunc InTestdata() {}\n",
		"sub/go.mod":           "module example.com/repo/sub\n\ngo 1.25\n",
		"sub/s.go":             "package sub\n\n// V is a var.\nvar V = 3\n",
		"sub/internal/go.mod":  "module example.com/repo/sub/internal\n",
		"sub/internal/i.go":    "package internal\n\nfunc I() {}\n",
		"examples/ex/go.mod":   "module example.com/repo/examples/ex\n",
		"examples/ex/main.go":  "package main\n\nfunc Main() {}\n",
		".hidden/h.go":         "package h\n\nfunc H() {}\n",
		"lib/nested/nested.go": "package nested\n\nconst On = true\n",
	})
	mods, err := apisnapshot.Scan(root)
	require.NoError(t, err)
	byPath := map[string][]string{}
	for _, m := range mods {
		byPath[m.Path] = m.Lines
	}
	assert.Equal(t, []string{
		"pkg example.com/repo/lib, const Delay = 3 * time.Second",
		"pkg example.com/repo/lib, const KindA = 1",
		"pkg example.com/repo/lib, const KindA Kind",
		"pkg example.com/repo/lib, const KindB = 2",
		"pkg example.com/repo/lib, const KindB Kind",
		"pkg example.com/repo/lib, const KindC = 4",
		"pkg example.com/repo/lib, const KindC Kind",
		"pkg example.com/repo/lib, const Limit = 1024",
		"pkg example.com/repo/lib, const Limit ideal-int",
		`pkg example.com/repo/lib, const Name = "x"`,
		"pkg example.com/repo/lib, const Name ideal-string",
		"pkg example.com/repo/lib, func Map[T, U any]([]T, func(T) U) []U",
		"pkg example.com/repo/lib, func New(time.Duration, ...string) (*Options, error)",
		"pkg example.com/repo/lib, method (*List[T]) Add(T)",
		"pkg example.com/repo/lib, method (Options) String() string",
		"pkg example.com/repo/lib, type Alias = Options",
		"pkg example.com/repo/lib, type Doer interface { Do, unexported methods }",
		"pkg example.com/repo/lib, type Doer interface, Do(context.Context, int) error",
		"pkg example.com/repo/lib, type Doer interface, embedded Inner2",
		"pkg example.com/repo/lib, type Inner struct",
		"pkg example.com/repo/lib, type Inner struct, A string",
		"pkg example.com/repo/lib, type Inner struct, B string",
		"pkg example.com/repo/lib, type Inner2 interface { Less }",
		"pkg example.com/repo/lib, type Inner2 interface, Less(Inner2) bool",
		"pkg example.com/repo/lib, type Kind int",
		"pkg example.com/repo/lib, type List[T any] struct",
		"pkg example.com/repo/lib, type List[T any] struct, Items []T",
		"pkg example.com/repo/lib, type Options struct",
		"pkg example.com/repo/lib, type Options struct, On func(context.Context, string) (bool, error)",
		"pkg example.com/repo/lib, type Options struct, Timeout time.Duration",
		"pkg example.com/repo/lib, type Options struct, embedded *Other",
		"pkg example.com/repo/lib, type Options struct, embedded Inner",
		"pkg example.com/repo/lib, type Other struct",
		"pkg example.com/repo/lib, var Default *Options",
		"pkg example.com/repo/lib, var ErrGone error",
		"pkg example.com/repo/lib, var Hook func(context.Context, int) error",
		"pkg example.com/repo/lib/nested, const On = true",
		"pkg example.com/repo/lib/nested, const On ideal-bool",
	}, byPath["example.com/repo"])
	assert.Equal(t, []string{"pkg example.com/repo/sub, var V int"}, byPath["example.com/repo/sub"])
	assert.Empty(t, byPath["example.com/repo/examples/ex"], "a main package holds no API")
	assert.NotContains(t, byPath, "example.com/repo/sub/internal", "an internal module holds no API")
}

func TestModuleFile(t *testing.T) {
	assert.Equal(t, filepath.Join("api", "reflection.txt"), apisnapshot.Module{Path: "github.com/loopctl-go/reflection"}.File("github.com/loopctl-go/reflection"))
	assert.Equal(t, filepath.Join("api", "contrib_otel.txt"), apisnapshot.Module{Path: "github.com/loopctl-go/reflection/contrib/otel"}.File("github.com/loopctl-go/reflection"))
}

// TestDiffSaysWhatChanged: a name added, a name removed and a list of a
// module that is gone are each reported; Write makes the lists current.
func TestDiffSaysWhatChanged(t *testing.T) {
	root := writeTree(t, map[string]string{
		"go.mod":           "module example.com/repo\n",
		"a.go":             "package repo\n\nfunc Kept() {}\n\nfunc Added() {}\n",
		"api/repo.txt":     "pkg example.com/repo, func Kept()\npkg example.com/repo, func Removed()\n",
		"api/gone_mod.txt": "pkg example.com/repo/gone/mod, func F()\n",
		"other/go.mod":     "module example.com/repo/other\n",
		"other/main.go":    "package main\n\nfunc main() {}\n",
		"api/other.txt":    "pkg example.com/repo/other, func F()\n",
	})
	diff, err := apisnapshot.Diff(root)
	require.NoError(t, err)
	assert.Equal(t, map[string][]string{
		"api/repo.txt": {"+ pkg example.com/repo, func Added()", "- pkg example.com/repo, func Removed()"},
	}, diff, "outside a checkout, a list without its module stands alone")

	require.NoError(t, os.Mkdir(filepath.Join(root, ".git"), 0o755))
	diff, err = apisnapshot.Diff(root)
	require.NoError(t, err)
	assert.Equal(t, []string{"- pkg example.com/repo/gone/mod, func F()"}, diff["api/gone_mod.txt"])
	assert.Equal(t, []string{"- pkg example.com/repo/other, func F()"}, diff["api/other.txt"], "a module with no API has no list")

	require.NoError(t, apisnapshot.Write(root))
	diff, err = apisnapshot.Diff(root)
	require.NoError(t, err)
	assert.Empty(t, diff)
	b, err := os.ReadFile(filepath.Join(root, "api", "repo.txt"))
	require.NoError(t, err)
	assert.Equal(t, "pkg example.com/repo, func Added()\npkg example.com/repo, func Kept()\n", string(b))
	assert.NoFileExists(t, filepath.Join(root, "api", "gone_mod.txt"))
}
