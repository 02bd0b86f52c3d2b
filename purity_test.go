package reflection_test

import (
	"maps"
	"strings"
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
	{"effect_memory", sharedLayer},
	// Everything else: the manual, the values everyone shares, the errors,
	// the report's records, the stock pieces, the helpers for adapters, the
	// redactor. The machine may use them; what it reaches of them is checked
	// as strictly as the machine's own files.
	{"doc", valueLayer},
	{"bundle", valueLayer}, // the internal packages the root shares, copied (internal/cmd/bundle)
	{"call", valueLayer},
	{"reflection", valueLayer},
	{"analysis", valueLayer},
	{"action", valueLayer},
	{"ask", valueLayer},
	{"reason", valueLayer},
	{"effect", valueLayer},
	{"errors", valueLayer},
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
