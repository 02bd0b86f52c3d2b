package llm

import (
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestFoldsCase(t *testing.T) {
	tests := map[string]bool{
		`abc`: false, `(?i)abc`: true, `(?s-i:a)`: true, `(?P<i>a)`: false, `\(?i)`: false, `[(?i)]`: true,
		`(?U)a`: false, `(?m)^i$`: false, `\\(?i)a`: true, `(?:i)`: false,
	}
	for p, want := range tests {
		assert.Equal(t, want, foldsCase(p), "%q", p)
	}
}

// TestFoldedRunes: each way of writing the ends of a range is read as the
// parser reads it; the span outside [minFold, maxFold], and a range that
// covers all of it, fold nothing.
func TestFoldedRunes(t *testing.T) {
	tests := []struct {
		p    string
		want int
	}{
		{`[a-z]`, 26},
		{`[A-Za-z0-9_-]`, 52},
		{`[\x{100}-\x{10FFFF}]`, maxFold - 0x100 + 1},
		{`[\x{0}-\x{10FFFF}]`, 0},
		{`[\x00-\x40]`, 0},
		{`[\x41-\x5a]`, 26},
		{`[\101-\132]`, 26},
		{`[\0-\x{1e943}]`, 0},
		{`[\_-\x{ff}]`, 0xff - '_' + 1},
		{`[\--\x{100}]`, 0x100 - minFold + 1},
		{`[Ā-𞥃]`, maxFold - 0x100 + 1},
		{`[a-cx-z]`, 6},
		{`[a-c-e]`, 3},
		{`[\d-z]`, 0},
		{`[\pL-z]`, 0},
		{`[z-a]`, 0},
		{`[\n-\x{100}]`, 0x100 - minFold + 1},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, foldedRunes(tt.p), "%q", tt.p)
	}
}

// TestFoldedRunesOfRandomClasses: classes of random ranges, their ends
// written in every form the parser reads, fold at least the runes of their
// ranges.
func TestFoldedRunesOfRandomClasses(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 3))
	write := func(r rune) string {
		switch rng.IntN(5) {
		case 0:
			if r < 0x80 && !isAlnum(byte(r)) && r > ' ' {
				return `\` + string(r)
			}
		case 1:
			return `\x{` + strconv.FormatInt(int64(r), 16) + `}`
		case 2:
			if r < 0x100 {
				return `\x` + strings.ToUpper(strconv.FormatInt(int64(r)|0x100, 16)[1:])
			}
		case 3:
			if r < 0o1000 {
				return `\` + strconv.FormatInt(int64(r)|0o1000, 8)[1:]
			}
		}
		if r == '\\' || r == ']' || r == '[' || r == '-' || r == '^' || r < ' ' || r >= 0xd800 && r < 0xe000 {
			return `\x{` + strconv.FormatInt(int64(r), 16) + `}`
		}
		return string(r)
	}
	end := func() rune {
		if rng.IntN(2) == 0 {
			return rune(rng.IntN(0x200))
		}
		return rune(rng.IntN(0x1f000))
	}
	for range 5000 {
		var b strings.Builder
		want := 0
		b.WriteString("(?i)[")
		for range 1 + rng.IntN(4) {
			lo, hi := end(), end()
			lo, hi = min(lo, hi), max(lo, hi)
			b.WriteString(write(lo) + "-" + write(hi))
			if !(lo <= minFold && hi >= maxFold) && max(lo, minFold) <= min(hi, maxFold) {
				want += int(min(hi, maxFold) - max(lo, minFold) + 1)
			}
		}
		b.WriteString("]")
		p := b.String()
		if _, err := regexp.Compile(strings.TrimPrefix(p, "(?i)")); err != nil { // the same syntax, without folding's work
			t.Fatalf("%q: %v", p, err)
		}
		if got := foldedRunes(p); got < want {
			t.Fatalf("foldedRunes(%q) = %d, want at least %d", p, got, want)
		}
	}
}

func TestParseCost(t *testing.T) {
	assert.Equal(t, 1+len(`^[a-z]+$`), parseCost(`^[a-z]+$`), "a plain pattern costs its bytes")
	assert.Equal(t, 1+len(`\pL\p{Greek}`)+2*unicodeClassCost, parseCost(`\pL\p{Greek}`))
	assert.Equal(t, 1+len(`(?i)[a-z]`)+26/foldUnit, parseCost(`(?i)[a-z]`))
	wide := `(?i)[\x{100}-\x{10FFFF}]`
	assert.Greater(t, parseCost(wide), DefaultValidationBudget/2, "24 bytes that fold 125,000 runes")
}

// TestIsRegexAgreesWithRegexpCompile: the format "regex" accepts exactly
// what regexp.Compile accepts, and charges the parse to the meter.
func TestIsRegexAgreesWithRegexpCompile(t *testing.T) {
	for _, p := range append(sizePatterns, `(`, `a**`, `\1`, `[z-a]`, `\x{110000}`, `(?i`, `(?P<n>a)`, `\p{Nope}`, "\xff") {
		m := &meter{left: 1 << 30}
		_, err := regexp.Compile(p)
		assert.Equal(t, err == nil, m.isRegex(p), "%q", p)
		assert.Equal(t, 1<<30-parseCost(p), m.left, "%q", p)
	}
	m := &meter{left: 1}
	assert.True(t, m.isRegex(42), "a value that is not a string is not checked")
	assert.Panics(t, func() { m.isRegex(strings.Repeat("a", 100)) }, "a parse over the budget ends the validation")
}
