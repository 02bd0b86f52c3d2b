package llm

import (
	"math/rand/v2"
	"regexp/syntax"
	"strings"
	"testing"
)

// realSize compiles p the way regexp.Compile does and counts the program's
// instructions.
func realSize(t *testing.T, p string) (int, bool) {
	re, err := syntax.Parse(p, syntax.Perl)
	if err != nil {
		return 0, false
	}
	prog, err := syntax.Compile(re.Simplify())
	if err != nil {
		t.Fatalf("%q parses but does not compile: %v", p, err)
	}
	return len(prog.Inst), true
}

// sizePatterns exercise each operator, each way Simplify rewrites a
// repetition, and the patterns of real tool schemas.
var sizePatterns = []string{
	``, `a`, `abc`, `(?i)abc`, `[a-z]`, `.`, `(?s).`, `^$`, `\b\B`, `\A\z`, `(a)`, `(?:a)`, `a*`, `a+`, `a?`, `a*?`, `a+?`, `a??`,
	`(a*)*`, `(a*)+`, `(a+)*`, `(a?)*`, `(?:a*)*?`, `(?:a*?)*`, `()*`, `(?:)+`, `(|a)*`, `a|b`, `a|b|c`, `ab|cd|ef`, `(a|)+`,
	`[^\x00-\x{10FFFF}]`, `a[^\x00-\x{10FFFF}]`, `a|[^\x00-\x{10FFFF}]`, `[^\x00-\x{10FFFF}]*`, `[^\x00-\x{10FFFF}]{2,5}`,
	`a{0}`, `a{1}`, `a{2}`, `a{0,1}`, `a{0,3}`, `a{2,5}`, `a{3,}`, `a{0,}`, `a{1,}`, `(a*){2,4}`, `(a?){3}`, `(a|b){1000}x`,
	`(?:a{0}){3,}`, `(?:){2,4}`, `(?:a{2}){3}`, `(?:(?:a{2,3}){2,3}){2,3}`, `x{2,3}?`, `(?:a*?){2,}`, `(?:a+){2,}`,
	`a{1000}`, strings.Repeat(`a{1000}`, 10), `^[a-zA-Z0-9_-]{1,64}$`, `^[a-zA-Z0-9._:-]{1,128}$`, `^[A-Za-z0-9_-]{20,80}$`,
	`^[a-f0-9]{64}$`, `^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$`,
	`^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$`,
	`(?i)abc|abd`, `(?i)a|b|c`, `(?i)[a-z]+|k`, `(?i:k)|K|\x{212a}`, `(?i)k(?-i)k`, `(?i)ſ{3}`, `(?i)[[:alpha:]]`, `(?i)\pL`,
	`^[a-zA-Z0-9.!#$%&'*+/=?^_` + "`" + `{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$`,
}

func TestProgramSizeIsTheCompiledSize(t *testing.T) {
	for _, p := range sizePatterns {
		want, ok := realSize(t, p)
		if !ok {
			t.Fatalf("%q does not parse", p)
		}
		got, err := programSize(p)
		if err != nil || got != want {
			t.Errorf("programSize(%q) = %d, %v; compiled, it has %d instructions", p, got, err, want)
		}
	}
}

// TestProgramSizeOfRandomPatterns: random patterns over every operator.
func TestProgramSizeOfRandomPatterns(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 2026))
	for range 20_000 {
		p := randomPattern(rng, 4)
		want, ok := realSize(t, p)
		got, err := programSize(p)
		if ok != (err == nil) || got != want {
			t.Fatalf("programSize(%q) = %d, %v; compiled, it has %d instructions (parses: %v)", p, got, err, want, ok)
		}
	}
}

func randomPattern(rng *rand.Rand, depth int) string {
	atoms := []string{`a`, `bc`, `[a-c]`, `.`, `^`, `$`, `\b`, `()`, `(?:)`, `(?i)k`, `[^\x00-\x{10FFFF}]`, ``,
		`(?i)`, `(?-i)`, `(?i:sk)`, `[k-s]`, `ſ`, `\x{212a}`, `(?is)[^k]`, `(?U)a*`}
	if depth == 0 {
		return atoms[rng.IntN(len(atoms))]
	}
	sub := func() string { return randomPattern(rng, depth-1) }
	switch rng.IntN(9) {
	case 0:
		return sub() + sub()
	case 1:
		return sub() + `|` + sub()
	case 2:
		return `(` + sub() + `)`
	case 3:
		return `(?:` + sub() + `)` + []string{`*`, `+`, `?`, `*?`, `+?`, `??`}[rng.IntN(6)]
	case 4:
		lo := rng.IntN(4)
		bounds := []string{`{` + itoa(lo) + `}`, `{` + itoa(lo) + `,}`, `{` + itoa(lo) + `,` + itoa(lo+rng.IntN(4)) + `}`}
		return `(?:` + sub() + `)` + bounds[rng.IntN(3)] + []string{``, `?`}[rng.IntN(2)]
	default:
		return sub()
	}
}

func itoa(n int) string { return string(rune('0' + n)) }

// FuzzProgramSize: on any pattern the parser takes, programSize is the size
// of the program regexp.Compile builds.
//
//	go test -run '^$' -fuzz '^FuzzProgramSize$' -fuzztime 10000x ./llm
func FuzzProgramSize(f *testing.F) {
	for _, p := range sizePatterns {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, p string) {
		if len(p) > 256 {
			return // keeps each compile quick; size grows by the same rules at any length
		}
		want, ok := realSize(t, p)
		got, err := programSize(p)
		if ok != (err == nil) || got != want {
			t.Fatalf("programSize(%q) = %d, %v; compiled, it has %d instructions (parses: %v)", p, got, err, want, ok)
		}
	})
}
