package rules

// needleSet finds, in one pass over a text, which of a fixed set of
// lower-case needles the text contains: an Aho–Corasick automaton, compiled
// to a table indexed by state and byte class. The stock table registers its
// few hundred phrases here, so a text is read once, however many rules ask.
//
// A needleSet is filled by add while the stock table is built, then
// compiled once; after that it is read-only and safe for concurrent use.
// A set with foldCase reads ASCII letters of either case as the same, so it
// can scan a text that was never lower-cased.
type needleSet struct {
	needles  []string
	foldCase bool
	longest  int // the longest needle, in bytes

	// The compiled automaton. A state is kept as its row's offset in delta
	// (state*classes), so a step is one load; the low bit of an entry says
	// whether some needle ends in the state it leads to.
	class   [256]uint8 // byte -> class; 0 is "a byte no needle has"
	classes int
	delta   []uint32   // state*classes + class -> next state*classes<<1 | ends
	out     [][]uint16 // state -> the needles that end here
}

// maxNeedles bounds the set, so the found bitmap fits in a failureView.
const maxNeedles = 64 * len(foundNeedles{})

// foundNeedles is a bitmap of needle indexes.
type foundNeedles [16]uint64

func (f *foundNeedles) set(i uint16)      { f[i/64] |= 1 << (i % 64) }
func (f *foundNeedles) has(i uint16) bool { return f[i/64]&(1<<(i%64)) != 0 }

// add registers needles (lower case) and returns their indexes.
func (s *needleSet) add(needles ...string) []uint16 {
	ids := make([]uint16, len(needles))
	for i, n := range needles {
		if n == "" {
			panic("rules: empty needle")
		}
		ids[i] = uint16(len(s.needles))
		s.needles = append(s.needles, n)
		s.longest = max(s.longest, len(n))
	}
	if len(s.needles) > maxNeedles {
		panic("rules: too many needles for the stock table")
	}
	return ids
}

// compile builds the automaton from the needles added so far.
func (s *needleSet) compile() {
	// Byte classes: one per byte that some needle uses.
	s.classes = 1
	for _, n := range s.needles {
		for i := 0; i < len(n); i++ {
			if 'A' <= n[i] && n[i] <= 'Z' {
				panic("rules: a needle must be lower case: " + n)
			}
			if s.class[n[i]] == 0 {
				s.class[n[i]] = uint8(s.classes)
				s.classes++
			}
		}
	}
	if s.foldCase {
		for c := byte('A'); c <= 'Z'; c++ {
			s.class[c] = s.class[c+'a'-'A']
		}
	}
	// The trie, with 0 for "no edge" (the root is never a target).
	trie := [][]uint16{make([]uint16, s.classes)}
	ends := [][]uint16{nil}
	for id, n := range s.needles {
		state := 0
		for i := 0; i < len(n); i++ {
			c := s.class[n[i]]
			if trie[state][c] == 0 {
				trie = append(trie, make([]uint16, s.classes))
				ends = append(ends, nil)
				trie[state][c] = uint16(len(trie) - 1)
			}
			state = int(trie[state][c])
		}
		ends[state] = append(ends[state], uint16(id))
	}
	if len(trie) > 1<<16 {
		panic("rules: the stock table's needles are too long")
	}
	// Breadth first: failure links, full transitions, merged outputs.
	next := make([]uint16, len(trie)*s.classes)
	s.out = make([][]uint16, len(trie))
	fail := make([]uint16, len(trie))
	queue := make([]uint16, 0, len(trie))
	for c := 0; c < s.classes; c++ {
		if child := trie[0][c]; child != 0 {
			next[c] = child
			queue = append(queue, child)
		}
	}
	for len(queue) > 0 {
		state := queue[0]
		queue = queue[1:]
		s.out[state] = append(append([]uint16(nil), ends[state]...), s.out[fail[state]]...)
		for c := 0; c < s.classes; c++ {
			to := next[int(fail[state])*s.classes+c]
			if child := trie[state][c]; child != 0 {
				fail[child] = to
				next[int(state)*s.classes+c] = child
				queue = append(queue, child)
			} else {
				next[int(state)*s.classes+c] = to
			}
		}
	}
	// The same transitions, each as the row offset of its target and a bit
	// for "a needle ends there".
	s.delta = make([]uint32, len(next))
	for i, to := range next {
		e := uint32(to) * uint32(s.classes) << 1
		if len(s.out[to]) > 0 {
			e |= 1
		}
		s.delta[i] = e
	}
}

// scan sets in found every needle that text contains.
func (s *needleSet) scan(text string, found *foundNeedles) {
	delta, class, classes := s.delta, &s.class, uint32(s.classes)
	at := uint32(0)
	for i := 0; i < len(text); i++ {
		e := delta[at+uint32(class[text[i]])]
		at = e >> 1
		if e&1 != 0 {
			for _, id := range s.out[at/classes] {
				found.set(id)
			}
		}
	}
}
