package reflection_test

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// machineFiles hold the recovery machine and the values it is made of: what
// every runtime shares. They must do no I/O of any kind, and refer to
// nothing of a runtime.
var machineFiles = []string{
	"action.go", "analysis.go", "ask.go", "call.go", "correct.go",
	"effect.go", "errors.go", "json_value.go", "loop_guard.go",
	"notes.go", "reason.go", "recovery.go", "reflection.go", "report.go",
	"report_json.go", "settings.go", "step.go",
}

// runtimeFiles hold Driver.Run, the runtime: what they declare, the machine
// must not use.
var runtimeFiles = []string{
	"budget.go", "dispatch.go", "driver.go", "health.go", "idempotency.go", "runtime_options.go",
	"log.go", "loop_detector.go", "observer.go", "options.go", "run.go", "wait.go",
}

// TestMachineIsPure keeps the machine honest: its files read no clock,
// draw no random number, start no goroutine, select on nothing, send or
// receive on no channel, range over no map, make no context that waits,
// and refer to nothing declared in the runtime's files. Every method of
// *Recovery lives in a machine file, so the machine cannot grow outside
// them, and the runtime's files drive it through its methods only, never
// its fields.
func TestMachineIsPure(t *testing.T) {
	for _, name := range append(slices.Clone(machineFiles), runtimeFiles...) {
		if _, err := os.Stat(name); err != nil {
			t.Errorf("%s is listed but missing: update the lists of this test", name)
		}
	}
	for _, v := range machineViolations(t, ".", "github.com/loopctl-go/reflection", machineFiles, runtimeFiles) {
		t.Error(v)
	}
}

// TestMachineCheckFindsEachViolation shows that the check of
// TestMachineIsPure can fail: a small package breaking each rule once.
func TestMachineCheckFindsEachViolation(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("runtime.go", `package p

type Driver struct{}

func (d *Driver) peek(r *Recovery) int { return len(r.m) }
`)
	write("machine.go", `package p

import (
	"context"
	"math/rand/v2"
	"time"
)

type Recovery struct{ m map[string]int }

func (r *Recovery) clock() time.Time { return time.Now() }
func (r *Recovery) draw() int        { return rand.IntN(3) }
func (r *Recovery) spawn()           { go func() {}() }
func (r *Recovery) pick(c chan int) {
	select {
	case c <- 1:
	case <-c:
	}
}
func (r *Recovery) walk() {
	for range r.m {
	}
}
func (r *Recovery) waits(ctx context.Context) { context.WithTimeout(ctx, time.Second) }
func (r *Recovery) runtime() *Driver           { return nil }
`)
	write("elsewhere.go", `package p

func (r *Recovery) hidden() {}
`)
	got := strings.Join(machineViolations(t, dir, "example.com/p", []string{"machine.go"}, []string{"runtime.go"}), "\n")
	for _, want := range []string{
		"time.Now", "math/rand/v2.IntN", "a go statement", "a select", "a channel send",
		"a channel receive", "a channel type", "a range over a map", "context.WithTimeout",
		"Driver is declared in the runtime's runtime.go", "(*Recovery).hidden is outside",
		"the runtime reads the machine's field Recovery.m",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the check missed %q; it reported:\n%s", want, got)
		}
	}
}

// isRecovery reports whether t is Recovery or a pointer to it.
func isRecovery(t types.Type) bool {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := t.(*types.Named)
	return ok && n.Obj().Name() == "Recovery"
}

// forbiddenCalls are the package functions a machine file may not call:
// clocks, timers, randomness and contexts that end by themselves.
var forbiddenCalls = map[string][]string{
	"time":         {"Now", "Since", "Until", "Sleep", "After", "AfterFunc", "NewTimer", "NewTicker", "Tick"},
	"math/rand":    nil, // nil: every function
	"math/rand/v2": nil,
	"crypto/rand":  nil,
	"context":      {"WithCancel", "WithCancelCause", "WithTimeout", "WithTimeoutCause", "WithDeadline", "WithDeadlineCause", "AfterFunc"},
}

// sourceImporter is the importer the checks share: it type-checks the
// standard library from source once per test binary.
var sourceImporter = sync.OnceValues(func() (*token.FileSet, types.Importer) {
	fset := token.NewFileSet()
	return fset, importer.ForCompiler(fset, "source", nil)
})

// machineViolations type-checks the package in dir (its files that are not
// tests) and returns every place where a machine file breaks a rule.
func machineViolations(t *testing.T, dir, path string, machine, runtime []string) []string {
	t.Helper()
	fset, imp := sourceImporter()
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Uses: map[*ast.Ident]types.Object{}}
	conf := types.Config{Importer: imp}
	if _, err := conf.Check(path, fset, files, info); err != nil {
		t.Fatal(err)
	}
	fileOf := func(p token.Pos) string { return filepath.Base(fset.Position(p).Filename) }
	var out []string
	report := func(n ast.Node, what string) { out = append(out, fset.Position(n.Pos()).String()+": "+what) }
	for _, f := range files {
		if !slices.Contains(machine, fileOf(f.Pos())) {
			for _, d := range f.Decls {
				if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv != nil && types.ExprString(fn.Recv.List[0].Type) == "*Recovery" {
					report(fn, "method (*Recovery)."+fn.Name.Name+" is outside the machine's files")
				}
			}
			if slices.Contains(runtime, fileOf(f.Pos())) {
				ast.Inspect(f, func(n ast.Node) bool {
					sel, ok := n.(*ast.SelectorExpr)
					if !ok {
						return true
					}
					if field, ok := info.Uses[sel.Sel].(*types.Var); ok && field.IsField() && isRecovery(info.Types[sel.X].Type) {
						report(n, "the runtime reads the machine's field Recovery."+sel.Sel.Name+": use a method")
					}
					return true
				})
			}
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.GoStmt:
				report(n, "a go statement")
			case *ast.SelectStmt:
				report(n, "a select")
			case *ast.SendStmt:
				report(n, "a channel send")
			case *ast.UnaryExpr:
				if n.Op == token.ARROW {
					report(n, "a channel receive")
				}
			case *ast.ChanType:
				report(n, "a channel type")
			case *ast.RangeStmt:
				if _, isMap := info.Types[n.X].Type.Underlying().(*types.Map); isMap {
					report(n, "a range over a map (its order is random)")
				}
			case *ast.SelectorExpr:
				fn, ok := info.Uses[n.Sel].(*types.Func)
				if ok && fn.Pkg() != nil && fn.Type().(*types.Signature).Recv() == nil {
					if banned, listed := forbiddenCalls[fn.Pkg().Path()]; listed && (banned == nil || slices.Contains(banned, fn.Name())) {
						report(n, fn.Pkg().Path()+"."+fn.Name()+": a clock, a timer, randomness or a context that waits")
					}
				}
			case *ast.Ident:
				if obj := info.Uses[n]; obj != nil && obj.Pkg() != nil && obj.Pkg().Path() == path {
					if decl := fileOf(obj.Pos()); slices.Contains(runtime, decl) {
						report(n, n.Name+" is declared in the runtime's "+decl)
					}
				}
			}
			return true
		})
	}
	return out
}
