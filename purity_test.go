package reflection_test

import (
	"bufio"
	"bytes"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
)

// The root package's files by layer. A file belongs to the layer of the
// longest prefix below that its name has ("recovery" covers recovery.go and
// recovery_*.go); a file that no prefix covers fails the test, so a new file
// cannot fall outside the check unnoticed. This table, and the list of
// today's names under it, are the whole of the test's knowledge of file
// names.
var layerPrefixes = []struct {
	prefix string
	layer  layer
}{
	// The machine: Recovery, its steps, corrections, guards, notes and the
	// recording of its report. No I/O, no clock, no goroutine.
	{"recovery", machineLayer},
	// The runtime: Driver, Run and what it does around the machine's
	// steps (dispatch, waits, options, log, observer).
	{"driver", runtimeLayer},
	{"observer", runtimeLayer},
	// What calls share, which only a runtime consults.
	{"health", sharedLayer},
	{"budget", sharedLayer},
	{"loop_detector", sharedLayer},
	{"idempotency", sharedLayer},
	// Everything else: the manual, the values everyone shares, the errors,
	// the report's records, the stock pieces, the helpers for adapters, the
	// redactor. The machine may use them; what it reaches of them is checked
	// as strictly as the machine's own files.
	{"doc", valueLayer},
	{"call", valueLayer},
	{"reflection", valueLayer},
	{"analysis", valueLayer},
	{"action", valueLayer},
	{"ask", valueLayer},
	{"reason", valueLayer},
	{"effect", valueLayer},
	{"errors", valueLayer},
	{"input_checker", valueLayer},
	{"json_value", valueLayer},
	{"report", valueLayer},
	{"backoff", valueLayer},
	{"chain", valueLayer},
	{"cache", valueLayer},
	{"terminal", valueLayer},
	{"retry_after", valueLayer},
	{"errorfacts", valueLayer},
	{"adapter", valueLayer},
	{"redact", valueLayer},
}

// namesBeforeRenames are today's names of files whose prefix does not (yet)
// say their layer. .ci/rename-by-layer renames them and empties this list.
var namesBeforeRenames = map[string]layer{
	// BEGIN names before the renames
	"step.go":            machineLayer,
	"settings.go":        machineLayer,
	"correct.go":         machineLayer,
	"loop_guard.go":      machineLayer,
	"notes.go":           machineLayer,
	"report.go":          machineLayer,
	"effect.go":          machineLayer,
	"run.go":             runtimeLayer,
	"dispatch.go":        runtimeLayer,
	"wait.go":            runtimeLayer,
	"options.go":         runtimeLayer,
	"runtime_options.go": runtimeLayer,
	"log.go":             runtimeLayer,
	"task.go":            valueLayer,
	"noop.go":            valueLayer,
	"error_facts.go":     valueLayer,
	"host_framework.go":  valueLayer,
	"moved_names.go":     valueLayer,
	// END names before the renames
}

// layer is what a file of the root package is part of.
type layer int

const (
	noLayer      layer = iota
	machineLayer       // checked, with everything it reaches
	runtimeLayer       // the machine must not refer to it
	sharedLayer        // nor to this
	valueLayer         // checked where the machine reaches it
)

// layerOf returns the layer of a root file by its name.
func layerOf(name string) layer {
	if l, ok := namesBeforeRenames[name]; ok {
		return l
	}
	best, found := "", noLayer
	stem := strings.TrimSuffix(name, ".go")
	for _, p := range layerPrefixes {
		if (stem == p.prefix || strings.HasPrefix(stem, p.prefix+"_")) && len(p.prefix) > len(best) {
			best, found = p.prefix, p.layer
		}
	}
	return found
}

// walkedPackages are the module's packages the check reads from source and
// walks into (standard library only, like the root): what the machine calls
// there is checked as its own code is.
const walkedPackages = "github.com/loopctl-go/reflection/internal/"

// walkAllowed are functions of the module the walk does not enter, by
// package path and name (Type.Method for a method), each with why what it
// does is harmless to the machine. Every entry must be reached (the test
// fails on a stale one). None is needed today: keep it short.
var walkAllowed = map[string]string{}

// bannedPackages may not be used at all by the machine or by anything it
// reaches: I/O, shared memory, the Go runtime's own state, randomness. A
// path bans the packages under it too.
var bannedPackages = []string{
	"bufio", "crypto/rand", "database", "embed", "expvar", "hash/maphash", "io", "log",
	"math/rand", "net", "os", "path/filepath", "plugin", "runtime", "sync", "syscall",
	"unsafe", "weak",
}

// bannedNames are the members of otherwise allowed packages that read a
// clock, wait, print, scan, or walk a map in a random order. Methods are
// named Type.Method.
var bannedNames = map[string]struct {
	why     string
	members []string
}{
	"time": {"reads the clock or waits", []string{"Now", "Since", "Until", "Sleep", "After", "AfterFunc",
		"Tick", "NewTimer", "NewTicker", "Timer", "Ticker", "LoadLocation", "Local", "Time.Local"}},
	"fmt": {"prints or scans", []string{"Print", "Printf", "Println", "Fprint", "Fprintf", "Fprintln",
		"Scan", "Scanf", "Scanln", "Fscan", "Fscanf", "Fscanln"}},
	"context": {"waits on a context, or makes one that ends by itself", []string{"WithCancel", "WithCancelCause",
		"WithTimeout", "WithTimeoutCause", "WithDeadline", "WithDeadlineCause", "AfterFunc", "Cause",
		"Context.Done", "Context.Err", "Context.Deadline"}},
	"maps":    {"walks a map in a random order", []string{"Keys", "Values", "All"}},
	"reflect": {"walks a map in a random order", []string{"Value.MapKeys", "Value.MapRange"}},
}

// TestMachineIsPure keeps the machine honest. Its files, and every function
// of the module they reach (called, or taken as a value), read no clock,
// draw no random number, do no I/O, print nothing, touch no shared memory,
// start no goroutine, select on nothing, use no channel, range over no map,
// wait on no context, and refer to nothing of the runtime or of the state
// calls share. Every method of *Recovery lives in a machine file, so the
// machine cannot grow outside them, and the runtime drives it through its
// methods only, never its fields.
func TestMachineIsPure(t *testing.T) {
	pkg := loadRoot(t, nil)
	found, allowedSeen := pkg.violations(walkAllowed)
	for _, v := range found {
		t.Error(v)
	}
	for name, why := range walkAllowed {
		if !allowedSeen[name] {
			t.Errorf("walkAllowed holds %s (%s), which the machine no longer reaches: remove it", name, why)
		}
	}
}

// probe is a piece of code the check must catch: added to one or more
// files of the real package (by what they declare, so renames cannot lose
// them), it must give a violation that says want, inside the probe's code.
type probe struct {
	name string
	code map[string]string // by role: "machine", "value", "runtime", "internal", "new"
	want []string
}

// probeImports are the imports the probes use, added to every file they
// touch under names of their own.
var probeImports = map[string]string{
	"pfmt": "fmt", "pos": "os", "ptime": "time", "prand": "math/rand/v2", "pcrand": "crypto/rand",
	"psync": "sync", "patomic": "sync/atomic", "pruntime": "runtime", "punsafe": "unsafe",
	"pio": "io", "pnet": "net", "plog": "log", "pslog": "log/slog", "pexec": "os/exec",
	"psyscall": "syscall", "pcontext": "context", "pmaps": "maps",
	"ptextcut": "github.com/loopctl-go/reflection/internal/textcut",
}

// probeImportsName is the probe that stands for the probes' imports: a
// machine file's import of a banned package is caught at the import too.
const probeImportsName = "the probes' imports"

var probes = []probe{
	{probeImportsName, nil, []string{"imports os: ", "imports net: ", "imports sync: ", "imports math/rand/v2: "}},
	{"fmt.Println", map[string]string{"machine": `func (r *Recovery) probePrint() { pfmt.Println("x") }`}, []string{"fmt.Println"}},
	{"os.Getenv", map[string]string{"machine": `func (r *Recovery) probeEnv() string { return pos.Getenv("HOME") }`}, []string{"os.Getenv"}},
	{"a clock read through a helper", map[string]string{
		"machine": `func (r *Recovery) probeClock() int64 { return probeClockHelper() }`,
		"value":   `func probeClockHelper() int64 { return ptime.Now().UnixNano() }`,
	}, []string{"time.Now", "reached from (*Recovery).probeClock"}},
	{"a sleep two calls deep, through a value's method", map[string]string{
		"machine": `func (r *Recovery) probeDeep() int64 { return probeValue{}.stamp() }`,
		"value": `type probeValue struct{}
func (probeValue) stamp() int64 { return probeSleep() }
func probeSleep() int64 { ptime.Sleep(1); return 0 }`,
	}, []string{"time.Sleep", "via probeValue.stamp"}},
	{"a clock in a package variable", map[string]string{
		"machine": `func (r *Recovery) probeBoot() any { return probeBootTime }`,
		"value":   `var probeBootTime = ptime.Now()`,
	}, []string{"time.Now", "probeBootTime"}},
	{"a clock in an internal package", map[string]string{
		"machine":  `func (r *Recovery) probeInternal() int64 { return ptextcut.ProbeNow() }`,
		"internal": `func ProbeNow() int64 { return ptime.Now().Unix() }`,
	}, []string{"time.Now", "reached from (*Recovery).probeInternal"}},
	{"an allowed helper is not entered", map[string]string{
		"machine": `func (r *Recovery) probeAllowed() int64 { return probeAllowedClock() + probeNotAllowedClock() }`,
		"value": `func probeAllowedClock() int64 { return ptime.Now().Unix() }
func probeNotAllowedClock() int64 { return ptime.Now().Unix() }`,
	}, []string{"(in probeNotAllowedClock, reached from (*Recovery).probeAllowed)"}},
	{"a clock in a machine variable", map[string]string{"machine": `var probeMachineStart = ptime.Now()`}, []string{"time.Now"}},
	{"a timer", map[string]string{"machine": `func (r *Recovery) probeTimer() { ptime.NewTimer(0) }`}, []string{"time.NewTimer"}},
	{"math/rand/v2", map[string]string{"machine": `func (r *Recovery) probeRand() int { return prand.IntN(3) }`}, []string{"math/rand/v2.IntN"}},
	{"crypto/rand", map[string]string{"machine": `func (r *Recovery) probeCrypto(b []byte) { _, _ = pcrand.Read(b) }`}, []string{"crypto/rand.Read"}},
	{"sync", map[string]string{"machine": `func (r *Recovery) probeMutex() { var mu psync.Mutex; mu.Lock() }`}, []string{"sync.Mutex", "sync.Mutex.Lock"}},
	{"sync/atomic", map[string]string{"machine": `func (r *Recovery) probeAtomic(n *int64) { patomic.AddInt64(n, 1) }`}, []string{"sync/atomic.AddInt64"}},
	{"runtime", map[string]string{"machine": `func (r *Recovery) probeRuntime() int { return pruntime.NumGoroutine() }`}, []string{"runtime.NumGoroutine"}},
	{"unsafe", map[string]string{"machine": `func (r *Recovery) probeUnsafe() uintptr { return punsafe.Sizeof(r) }`}, []string{"unsafe.Sizeof"}},
	{"io", map[string]string{"machine": `func (r *Recovery) probeIO() { _, _ = pio.WriteString(pio.Discard, "x") }`}, []string{"io.WriteString", "io.Discard"}},
	{"net", map[string]string{"machine": `func (r *Recovery) probeNet() { _, _ = pnet.Dial("tcp", "x") }`}, []string{"net.Dial"}},
	{"log", map[string]string{"machine": `func (r *Recovery) probeLog() { plog.Print("x") }`}, []string{"log.Print"}},
	{"log/slog", map[string]string{"machine": `func (r *Recovery) probeSlog() { pslog.Info("x") }`}, []string{"log/slog.Info"}},
	{"os/exec", map[string]string{"machine": `func (r *Recovery) probeExec() { _ = pexec.Command("ls") }`}, []string{"os/exec.Command"}},
	{"syscall", map[string]string{"machine": `func (r *Recovery) probeSyscall() int { return psyscall.Getpid() }`}, []string{"syscall.Getpid"}},
	{"print", map[string]string{"machine": `func (r *Recovery) probeBuiltin() { println("x") }`}, []string{"println"}},
	{"a go statement", map[string]string{"machine": `func (r *Recovery) probeGo() { go func() {}() }`}, []string{"a go statement"}},
	{"a select", map[string]string{"machine": `func (r *Recovery) probeSelect() { select {} }`}, []string{"a select"}},
	{"channel operations", map[string]string{"machine": `func (r *Recovery) probeChan(c chan int) int { c <- 1; close(c); return <-c }`},
		[]string{"a channel type", "a channel send", "a channel receive", "close"}},
	{"a range over a map", map[string]string{"machine": `func (r *Recovery) probeMap(m map[string]int) (n int) {
	for range m {
		n++
	}
	return n
}`}, []string{"a range over a map"}},
	{"a map's keys, in random order", map[string]string{"machine": `func (r *Recovery) probeKeys(m map[string]int) { for range pmaps.Keys(m) {} }`}, []string{"maps.Keys"}},
	{"context waits", map[string]string{"machine": `func (r *Recovery) probeCtx(ctx pcontext.Context) {
	<-ctx.Done()
	_ = ctx.Err()
	_, _ = ctx.Deadline()
	_, cancel := pcontext.WithTimeout(ctx, 0)
	cancel()
}`}, []string{"context.Context.Done", "context.Context.Err", "context.Context.Deadline", "context.WithTimeout"}},
	{"the runtime's Driver", map[string]string{"machine": `func (r *Recovery) probeDriver() *Driver { return nil }`}, []string{"Driver is declared in the runtime's"}},
	{"the shared Health", map[string]string{"machine": `func (r *Recovery) probeHealth() *Health { return nil }`}, []string{"Health is declared in the shared state's"}},
	{"a method of *Recovery outside the machine", map[string]string{"value": `func (r *Recovery) probeOutside() {}`}, []string{"(*Recovery).probeOutside is outside the machine's files"}},
	{"the runtime reads a field", map[string]string{"runtime": `func probeField(r *Recovery) any { return r.{{field}} }`}, []string{"the runtime reads the machine's field Recovery."}},
	{"a file of no layer", map[string]string{"new": `func probeUnlisted() {}`}, []string{"belongs to no layer"}},
}

// TestMachineCheckCatchesEveryProbe shows that each rule of
// TestMachineIsPure can fail: every probe, added to the real package, is
// caught inside its own code, and nothing else is.
func TestMachineCheckCatchesEveryProbe(t *testing.T) {
	pkg := loadRoot(t, probes)
	allowed := maps.Clone(walkAllowed)
	allowed["github.com/loopctl-go/reflection.probeAllowedClock"] = "a probe: the walk must not enter it"
	found, allowedSeen := pkg.violations(allowed)
	if !allowedSeen["github.com/loopctl-go/reflection.probeAllowedClock"] {
		t.Error("the walk did not reach probeAllowedClock, which the allow-list names")
	}
	for _, p := range probes {
		var mine []string
		for _, v := range found {
			if pkg.inProbe(v.pos, p.name) {
				mine = append(mine, v.String())
			}
		}
		text := strings.Join(mine, "\n")
		for _, w := range p.want {
			if !strings.Contains(text, w) {
				t.Errorf("probe %q: the check missed %q; inside the probe it reported:\n%s", p.name, w, text)
			}
		}
		if strings.Contains(text, "probeAllowedClock") {
			t.Errorf("probe %q: the walk entered an allowed function:\n%s", p.name, text)
		}
	}
	for _, v := range found {
		if !pkg.inProbe(v.pos, "") {
			t.Errorf("a violation outside every probe: %v", v)
		}
	}
}

// TestLayerTable: every entry of the table gives the layer it says, and a
// name no prefix covers has none.
func TestLayerTable(t *testing.T) {
	tests := []struct {
		name string
		want layer
	}{
		{"recovery.go", machineLayer},
		{"recovery_step.go", machineLayer},
		{"recoveryx.go", noLayer},
		{"driver_run.go", runtimeLayer},
		{"observer.go", runtimeLayer},
		{"loop_detector.go", sharedLayer},
		{"redact_formats.go", valueLayer},
		{"unlisted.go", noLayer},
	}
	for _, tt := range tests {
		if got := layerOf(tt.name); got != tt.want {
			t.Errorf("layerOf(%q) = %d, want %d", tt.name, got, tt.want)
		}
	}
}

// violation is one place that breaks a rule.
type violation struct {
	pos  token.Position
	what string
}

func (v violation) String() string { return v.pos.String() + ": " + v.what }

// chunk is one probe's code for one file.
type chunk struct{ probe, code string }

// span is where a probe's code landed, in bytes of the file as parsed.
type span struct {
	probe, file string
	start, end  int
}

// rootPackage is the root package type-checked from source, with the
// module's internal packages it imports.
type rootPackage struct {
	fset  *token.FileSet
	path  string
	files []*ast.File // the root's
	info  *types.Info // the root's and its internal packages'
	decls map[*types.Func]*ast.FuncDecl
	vars  map[*types.Var]ast.Expr // package-level variables' initializers
	spans []span
}

// exportData returns the export data files of the root's dependencies, by
// import path, from one run of go list: the standard library is read in its
// compiled form, not type-checked from source on every run.
// The probes' imports are listed too.
var exportData = sync.OnceValues(func() (map[string]string, error) {
	args := []string{"list", "-export", "-deps", "-f", "{{.ImportPath}}\t{{.Export}}", "."}
	for _, path := range probeImports {
		if !strings.HasPrefix(path, walkedPackages) {
			args = append(args, path)
		}
	}
	cmd := exec.Command("go", args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list -export: %v: %s", err, stderr.String())
	}
	m := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if path, file, ok := strings.Cut(sc.Text(), "\t"); ok && file != "" {
			m[path] = file
		}
	}
	return m, sc.Err()
})

// loader imports the standard library from export data and the module's
// internal packages from source, into the root's types.Info.
type loader struct {
	t       *testing.T
	pkg     *rootPackage
	gc      types.Importer
	own     map[string]*types.Package
	overlay map[string][]chunk // by internal package path: code added to its first file
}

func (l *loader) Import(path string) (*types.Package, error) {
	if !strings.HasPrefix(path, walkedPackages) {
		return l.gc.Import(path)
	}
	if p, ok := l.own[path]; ok {
		return p, nil
	}
	dir := filepath.FromSlash(strings.TrimPrefix(path, l.pkg.path+"/"))
	files := l.pkg.parseDir(l.t, dir, map[string][]chunk{"": l.overlay[path]})
	p, err := (&types.Config{Importer: l}).Check(path, l.pkg.fset, files, l.pkg.info)
	if err != nil {
		return nil, err
	}
	l.pkg.index(files)
	l.own[path] = p
	return p, nil
}

// loadRoot type-checks the root package, with the probes ps added to it.
func loadRoot(t *testing.T, ps []probe) *rootPackage {
	t.Helper()
	exports, err := exportData()
	if err != nil {
		t.Fatal(err)
	}
	pkg := &rootPackage{
		fset: token.NewFileSet(), path: "github.com/loopctl-go/reflection",
		info: &types.Info{
			Types: map[ast.Expr]types.TypeAndValue{}, Uses: map[*ast.Ident]types.Object{},
			Defs: map[*ast.Ident]types.Object{},
		},
		decls: map[*types.Func]*ast.FuncDecl{}, vars: map[*types.Var]ast.Expr{},
	}
	l := &loader{t: t, pkg: pkg, own: map[string]*types.Package{}, overlay: map[string][]chunk{}}
	l.gc = importer.ForCompiler(pkg.fset, "gc", func(path string) (io.ReadCloser, error) {
		file, ok := exports[path]
		if !ok {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(file)
	})
	added := map[string][]chunk{}
	if ps != nil {
		roles, field := probeFiles(t)
		for _, p := range ps {
			for role, code := range p.code {
				c := chunk{p.name, strings.ReplaceAll(code, "{{field}}", field)}
				if role == "internal" {
					l.overlay[walkedPackages+"textcut"] = append(l.overlay[walkedPackages+"textcut"], c)
				} else {
					added[roles[role]] = append(added[roles[role]], c)
				}
			}
		}
	}
	pkg.files = pkg.parseDir(t, ".", added)
	if _, err := (&types.Config{Importer: l}).Check(pkg.path, pkg.fset, pkg.files, pkg.info); err != nil {
		t.Fatal(err)
	}
	pkg.index(pkg.files)
	return pkg
}

// probeFiles finds the files the probes go into by what they declare, so
// that renames cannot lose them, and the name of Recovery's first field.
func probeFiles(t *testing.T) (roles map[string]string, field string) {
	t.Helper()
	want := map[string]string{"machine": "\ntype Recovery struct {", "value": "\nfunc TaskFromContext(",
		"runtime": "\ntype Driver struct {"}
	roles = map[string]string{"new": "probe_unlisted.go"}
	names, _ := filepath.Glob("*.go")
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for role, decl := range want {
			if i := bytes.Index(src, []byte(decl)); i >= 0 {
				roles[role] = name
				if role == "machine" {
					field = strings.Fields(string(src[i+len(decl):]))[0]
				}
			}
		}
	}
	if len(roles) != len(want)+1 || field == "" {
		t.Fatalf("the probes' files: found %v, Recovery's first field %q", roles, field)
	}
	return roles, field
}

// parseDir parses the non-test files of dir, with the chunks of added[name]
// at the end of file name (added[""]: of the first file) and the probes'
// imports after its package clause. A name in added that dir has no file of
// is a new file.
func (p *rootPackage) parseDir(t *testing.T, dir string, added map[string][]chunk) []*ast.File {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	names = slices.DeleteFunc(names, func(n string) bool { return strings.HasSuffix(n, "_test.go") })
	sort.Strings(names)
	for name := range added {
		if name != "" && !slices.Contains(names, filepath.Join(dir, name)) {
			names = append(names, filepath.Join(dir, name))
		}
	}
	var files []*ast.File
	for i, name := range names {
		base := filepath.Base(name)
		chunks := added[base]
		if i == 0 && len(added[""]) > 0 {
			chunks = added[""]
		}
		src, err := os.ReadFile(name)
		if os.IsNotExist(err) {
			src, err = []byte("package reflection\n"), nil
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(chunks) > 0 {
			src = p.withProbes(t, src, base, chunks)
		}
		f, err := parser.ParseFile(p.fset, name, src, parser.SkipObjectResolution)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		files = append(files, f)
	}
	return files
}

// withProbes returns src with the probes' imports after its package clause
// and their code at its end, and records where each chunk landed.
func (p *rootPackage) withProbes(t *testing.T, src []byte, file string, chunks []chunk) []byte {
	t.Helper()
	clause, err := parser.ParseFile(token.NewFileSet(), file, src, parser.PackageClauseOnly)
	if err != nil {
		t.Fatal(err)
	}
	at := int(clause.Name.End()) - 1 // a fresh FileSet's file starts at 1
	eol := bytes.IndexByte(src[at:], '\n') + at + 1
	var all strings.Builder
	for _, c := range chunks {
		all.WriteString(c.code)
	}
	var out bytes.Buffer
	out.Write(src[:eol])
	out.WriteString("\n")
	importsAt := out.Len()
	out.WriteString("import (\n")
	aliases := slices.Sorted(func(yield func(string) bool) {
		for a := range probeImports {
			if !yield(a) {
				return
			}
		}
	})
	for _, a := range aliases {
		if strings.Contains(all.String(), a+".") {
			fmt.Fprintf(&out, "\t%s %q\n", a, probeImports[a])
		}
	}
	out.WriteString(")\n")
	p.spans = append(p.spans, span{probeImportsName, file, importsAt, out.Len()})
	newFile := bytes.Equal(src, []byte("package reflection\n"))
	out.Write(src[eol:])
	for _, c := range chunks {
		out.WriteString("\n")
		start := out.Len()
		out.WriteString(c.code)
		end := out.Len()
		if newFile {
			start = 0
		}
		p.spans = append(p.spans, span{c.probe, file, start, end})
		out.WriteString("\n")
	}
	return out.Bytes()
}

// inProbe reports whether pos lies in the code of the probe named probe
// ("" for any probe).
func (p *rootPackage) inProbe(pos token.Position, probe string) bool {
	for _, s := range p.spans {
		if (probe == "" || s.probe == probe) && s.file == filepath.Base(pos.Filename) && pos.Offset >= s.start && pos.Offset < s.end {
			return true
		}
	}
	return false
}

// index records the function declarations and package-level variables of
// files.
func (p *rootPackage) index(files []*ast.File) {
	for _, f := range files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if fn, ok := p.info.Defs[d.Name].(*types.Func); ok {
					p.decls[fn] = d
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					vs, ok := s.(*ast.ValueSpec)
					if !ok || d.Tok != token.VAR {
						continue
					}
					for i, n := range vs.Names {
						v, ok := p.info.Defs[n].(*types.Var)
						switch {
						case !ok:
						case len(vs.Values) == len(vs.Names):
							p.vars[v] = vs.Values[i]
						case len(vs.Values) == 1:
							p.vars[v] = vs.Values[0]
						}
					}
				}
			}
		}
	}
}

// layerAt returns the layer of the root file that holds pos; valueLayer for
// a position in another package of the module.
func (p *rootPackage) layerAt(pos token.Pos) (layer, string) {
	name := p.fset.Position(pos).Filename
	if filepath.Dir(name) != "." {
		return valueLayer, filepath.ToSlash(name)
	}
	return layerOf(filepath.Base(name)), filepath.Base(name)
}

// work is a function or variable initializer the walk must check, and how
// the machine reaches it.
type work struct {
	node ast.Node
	name string // what it is, for a message
	from string // the machine's function it is reached from; "" for machine code
	via  []string
}

// violations returns every place where the package breaks a rule, and which
// functions of allowed the walk met (and did not enter).
func (p *rootPackage) violations(allowed map[string]string) ([]violation, map[string]bool) {
	var out []violation
	allowedSeen := map[string]bool{}
	report := func(pos token.Pos, what string) {
		out = append(out, violation{p.fset.Position(pos), what})
	}
	var queue []work
	for _, f := range p.files {
		l, name := p.layerAt(f.Pos())
		if l == noLayer {
			report(f.Package, name+" belongs to no layer: give it a name the layer table of purity_test.go knows")
			continue
		}
		for _, d := range f.Decls {
			fn, isFunc := d.(*ast.FuncDecl)
			if isFunc && fn.Recv != nil && isRecoveryExpr(fn.Recv.List[0].Type) && l != machineLayer {
				report(fn.Pos(), "method (*Recovery)."+fn.Name.Name+" is outside the machine's files")
			}
			switch {
			case l == machineLayer && isFunc:
				queue = append(queue, work{node: fn, name: funcName(fn)})
			case l == machineLayer:
				queue = append(queue, work{node: d, name: "declarations of " + name})
			case l == runtimeLayer || l == sharedLayer:
				p.checkFieldReads(d, report)
			}
		}
		if l == machineLayer {
			for _, imp := range f.Imports {
				if path := strings.Trim(imp.Path.Value, `"`); bannedPackage(path) {
					report(imp.Pos(), "imports "+path+": I/O, shared memory, the Go runtime or randomness")
				}
			}
		}
	}
	seen := map[ast.Node]bool{}
	for len(queue) > 0 {
		w := queue[0]
		queue = queue[1:]
		if seen[w.node] {
			continue
		}
		seen[w.node] = true
		where := ""
		if w.from != "" {
			where = " (in " + w.name + ", reached from " + w.from
			if len(w.via) > 0 {
				where += " via " + strings.Join(w.via, ", ")
			}
			where += ")"
		}
		next := func(node ast.Node, name string) {
			from, via := w.from, slices.Clone(w.via)
			if from == "" {
				from = w.name
			} else {
				via = append(via, w.name)
			}
			queue = append(queue, work{node: node, name: name, from: from, via: via})
		}
		ast.Inspect(w.node, func(n ast.Node) bool {
			if what := p.banned(n); what != "" {
				report(n.Pos(), what+where)
			}
			id, ok := n.(*ast.Ident)
			if !ok {
				return true
			}
			obj := p.info.Uses[id]
			if obj == nil || obj.Pkg() == nil || !p.own(obj.Pkg().Path()) {
				return true
			}
			l, file := p.layerAt(obj.Pos())
			if l == runtimeLayer || l == sharedLayer {
				whose := map[layer]string{runtimeLayer: "the runtime's", sharedLayer: "the shared state's"}[l]
				report(id.Pos(), id.Name+" is declared in "+whose+" "+file+where)
				return true
			}
			if l == machineLayer {
				return true // checked as machine code
			}
			switch obj := obj.(type) {
			case *types.Func:
				obj = obj.Origin()
				name := qualifiedName(obj)
				if _, ok := allowed[name]; ok {
					allowedSeen[name] = true
					return true
				}
				if d := p.decls[obj]; d != nil {
					next(d, funcName(d))
				}
			case *types.Var:
				if e := p.vars[obj]; e != nil {
					next(e, obj.Name())
				}
			}
			return true
		})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out, allowedSeen
}

// own reports whether path is the root package or one the check reads from
// source.
func (p *rootPackage) own(path string) bool {
	return path == p.path || strings.HasPrefix(path, walkedPackages)
}

// banned returns what is wrong with n, or "" when nothing is.
func (p *rootPackage) banned(n ast.Node) string {
	switch n := n.(type) {
	case *ast.GoStmt:
		return "a go statement"
	case *ast.SelectStmt:
		return "a select"
	case *ast.SendStmt:
		return "a channel send"
	case *ast.UnaryExpr:
		if n.Op == token.ARROW {
			return "a channel receive"
		}
	case *ast.ChanType:
		return "a channel type"
	case *ast.RangeStmt:
		switch p.info.Types[n.X].Type.Underlying().(type) {
		case *types.Map:
			return "a range over a map (its order is random)"
		case *types.Chan:
			return "a range over a channel"
		}
	case *ast.Ident:
		switch obj := p.info.Uses[n].(type) {
		case *types.Builtin:
			switch obj.Name() {
			case "print", "println":
				return "the builtin " + obj.Name() + ": it writes to standard error"
			case "close":
				return "the builtin close: a channel operation"
			case "Sizeof", "Alignof", "Offsetof", "Add", "Slice", "SliceData", "String", "StringData":
				if obj.Pkg() == nil || obj.Pkg().Path() == "unsafe" {
					return "unsafe." + obj.Name() + ": unsafe reads memory behind the type system"
				}
			}
		case nil:
		default:
			if obj.Pkg() == nil {
				return ""
			}
			path := obj.Pkg().Path()
			if bannedPackage(path) {
				return path + "." + memberName(obj) + ": " + path + " does I/O, shares memory, reads the Go runtime or draws randomness"
			}
			if names := bannedNames[path]; slices.Contains(names.members, memberName(obj)) {
				return path + "." + memberName(obj) + ": it " + names.why
			}
		}
	}
	return ""
}

// checkFieldReads reports where a runtime declaration reads a field of
// Recovery rather than calling one of its methods.
func (p *rootPackage) checkFieldReads(d ast.Decl, report func(token.Pos, string)) {
	ast.Inspect(d, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if field, ok := p.info.Uses[sel.Sel].(*types.Var); ok && field.IsField() && isRecovery(p.info.Types[sel.X].Type) {
			report(sel.Pos(), "the runtime reads the machine's field Recovery."+sel.Sel.Name+": use a method")
		}
		return true
	})
}

// bannedPackage reports whether path, or a path above it, is banned.
func bannedPackage(path string) bool {
	for _, b := range bannedPackages {
		if path == b || strings.HasPrefix(path, b+"/") {
			return true
		}
	}
	return false
}

// memberName is obj's name, with its receiver's type name for a method
// (Context.Done).
func memberName(obj types.Object) string {
	fn, ok := obj.(*types.Func)
	if !ok {
		return obj.Name()
	}
	recv := fn.Signature().Recv()
	if recv == nil {
		return fn.Name()
	}
	t := recv.Type()
	if ptr, ok := t.(*types.Pointer); ok {
		t = ptr.Elem()
	}
	if named, ok := t.(*types.Named); ok {
		return named.Obj().Name() + "." + fn.Name()
	}
	return fn.Name()
}

// qualifiedName names fn for walkAllowed: package path, then name, with
// its receiver's type name for a method.
func qualifiedName(fn *types.Func) string {
	return fn.Pkg().Path() + "." + memberName(fn)
}

// funcName names a declaration for a message: f, T.m or (*T).m.
func funcName(fn *ast.FuncDecl) string {
	if fn.Recv == nil {
		return fn.Name.Name
	}
	recv := types.ExprString(fn.Recv.List[0].Type)
	if strings.HasPrefix(recv, "*") {
		return "(" + recv + ")." + fn.Name.Name
	}
	return recv + "." + fn.Name.Name
}

// isRecoveryExpr reports whether a receiver's type is Recovery or *Recovery.
func isRecoveryExpr(e ast.Expr) bool {
	s := types.ExprString(e)
	return s == "*Recovery" || s == "Recovery"
}

// isRecovery reports whether t is Recovery or a pointer to it.
func isRecovery(t types.Type) bool {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := t.(*types.Named)
	return ok && n.Obj().Name() == "Recovery"
}
