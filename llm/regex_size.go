package llm

import "regexp/syntax"

// Compiling a regular expression costs about its compiled program's size:
// Go's regexp expands a repetition such as a{1000} into a thousand copies,
// so 21 bytes of pattern can become millions of instructions, hundreds of
// megabytes and seconds of work. programSize finds that size from the parse
// alone, before anything is expanded, so the work can be refused or counted
// before it happens.

// programSize parses the regular expression p as regexp.Compile does (work
// that parseCost counts) and returns the number of instructions of its
// compiled program (what syntax.Compile gives for the simplified parse),
// without simplifying or compiling it. The error is the parser's.
func programSize(p string) (int, error) {
	re, err := syntax.Parse(p, syntax.Perl)
	if err != nil {
		return 0, err
	}
	return 2 + sizeOf(re).insts, nil // the program's first instruction fails, its last matches
}

// fragment is what compiling one simplified node gives.
type fragment struct {
	insts     int       // instructions emitted
	nullable  bool      // it can match the empty string
	op        syntax.Op // the simplified node's operator
	nonGreedy bool
}

// maxCounted is where sizes stop growing, far above any cap.
const maxCounted = 1 << 40

// sizeOf mirrors, for re, what (*syntax.Regexp).Simplify builds and what
// syntax.Compile then emits for it.
func sizeOf(re *syntax.Regexp) fragment {
	nonGreedy := re.Flags&syntax.NonGreedy != 0
	switch re.Op {
	case syntax.OpNoMatch:
		return fragment{op: re.Op}
	case syntax.OpEmptyMatch:
		return fragment{insts: 1, nullable: true, op: re.Op}
	case syntax.OpLiteral:
		if len(re.Rune) == 0 {
			return fragment{insts: 1, nullable: true, op: re.Op}
		}
		return fragment{insts: len(re.Rune), op: re.Op}
	case syntax.OpCharClass, syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		return fragment{insts: 1, op: re.Op}
	case syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return fragment{insts: 1, nullable: true, op: re.Op}
	case syntax.OpCapture:
		sub := sizeOf(re.Sub[0])
		return fragment{insts: add(sub.insts, 2), nullable: sub.nullable, op: re.Op}
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest:
		return repeated(re.Op, nonGreedy, sizeOf(re.Sub[0]))
	case syntax.OpConcat:
		if len(re.Sub) == 0 {
			return fragment{insts: 1, nullable: true, op: re.Op}
		}
		f := fragment{nullable: true, op: re.Op}
		for _, s := range re.Sub {
			sub := sizeOf(s)
			f.insts, f.nullable = add(f.insts, sub.insts), f.nullable && sub.nullable
		}
		return f
	case syntax.OpAlternate:
		f := fragment{op: re.Op}
		branches := 0
		for _, s := range re.Sub {
			sub := sizeOf(s)
			f.insts = add(f.insts, sub.insts)
			if sub.op != syntax.OpNoMatch { // a branch that cannot match adds no choice
				branches++
				f.nullable = f.nullable || sub.nullable
			}
		}
		f.insts = add(f.insts, max(branches-1, 0))
		return f
	case syntax.OpRepeat:
		return repetition(re.Min, re.Max, nonGreedy, sizeOf(re.Sub[0]))
	}
	return fragment{insts: 1, op: re.Op} // no other operator exists
}

// repetition is x{min,max} (max -1 for no bound) for a simplified x of size
// sub: min copies of x, then max-min optional ones nested in each other, or
// a plus.
func repetition(lo, hi int, nonGreedy bool, sub fragment) fragment {
	switch {
	case lo == 0 && hi == 0:
		return fragment{insts: 1, nullable: true, op: syntax.OpEmptyMatch}
	case hi == -1 && lo == 0:
		return repeated(syntax.OpStar, nonGreedy, sub)
	case hi == -1 && lo == 1:
		return repeated(syntax.OpPlus, nonGreedy, sub)
	case hi == -1:
		plus := repeated(syntax.OpPlus, nonGreedy, sub)
		return fragment{insts: add(mul(lo-1, sub.insts), plus.insts), nullable: sub.nullable && plus.nullable, op: syntax.OpConcat}
	case lo == 1 && hi == 1:
		return sub
	}
	f := fragment{insts: mul(lo, sub.insts), nullable: lo == 0 || sub.nullable, op: syntax.OpConcat}
	if hi > lo {
		suffix := repeated(syntax.OpQuest, nonGreedy, sub)
		if hi-lo > 1 {
			// Each further optional copy is (x suffix)?: x, the suffix, and
			// one choice.
			suffix = fragment{insts: add(suffix.insts, mul(hi-lo-1, add(sub.insts, 1))), nullable: true,
				op: syntax.OpQuest, nonGreedy: nonGreedy}
		}
		if lo == 0 {
			return suffix
		}
		f.insts = add(f.insts, suffix.insts)
	}
	return f
}

// repeated is x*, x+ or x? (op) for a simplified x of size sub, as Simplify
// leaves it (x** is x*, ()* is ()) and Compile emits it (a loop needs one
// more choice when x can match the empty string).
func repeated(op syntax.Op, nonGreedy bool, sub fragment) fragment {
	if sub.op == syntax.OpEmptyMatch || sub.op == op && sub.nonGreedy == nonGreedy {
		return sub
	}
	f := fragment{insts: add(sub.insts, 1), nullable: true, op: op, nonGreedy: nonGreedy}
	switch op {
	case syntax.OpStar:
		if sub.nullable {
			f.insts = add(f.insts, 1)
		}
	case syntax.OpPlus:
		f.nullable = sub.nullable
	}
	return f
}

func add(a, b int) int { return min(a+b, maxCounted) }

func mul(n, size int) int {
	if n > 0 && size > maxCounted/n {
		return maxCounted
	}
	return n * size
}
