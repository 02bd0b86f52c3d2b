package rules

// needleSet finds, in one pass over a text, which of a fixed set of
// lower-case needles the text contains: an Aho–Corasick automaton, compiled
// to a table indexed by state and byte class. The stock table registers its
// few hundred phrases here, so a text is read once, however many rules ask.
//
// A needleSet is filled by add while the stock table is built, then
// compiled once; after that it is read-only and safe for concurrent use.
type needleSet struct {
	needles []string

	// The compiled automaton.
	class   [256]uint8 // byte -> class; 0 is "a byte no needle has"
	classes int
	delta   []uint16   // state*classes + class -> next state
	out     [][]uint16 // state -> the needles that end here
}

// maxNeedles bounds the set, so the found bitmap fits in a failureView.
const maxNeedles = 64 * len(foundNeedles{})

// foundNeedles is a bitmap of needle indexes.
type foundNeedles [8]uint64

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
			if s.class[n[i]] == 0 {
				s.class[n[i]] = uint8(s.classes)
				s.classes++
			}
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
	s.delta = make([]uint16, len(trie)*s.classes)
	s.out = make([][]uint16, len(trie))
	fail := make([]uint16, len(trie))
	queue := make([]uint16, 0, len(trie))
	for c := 0; c < s.classes; c++ {
		if child := trie[0][c]; child != 0 {
			s.delta[c] = child
			queue = append(queue, child)
		}
	}
	for len(queue) > 0 {
		state := queue[0]
		queue = queue[1:]
		s.out[state] = append(append([]uint16(nil), ends[state]...), s.out[fail[state]]...)
		for c := 0; c < s.classes; c++ {
			next := s.delta[int(fail[state])*s.classes+c]
			if child := trie[state][c]; child != 0 {
				fail[child] = next
				s.delta[int(state)*s.classes+c] = child
				queue = append(queue, child)
			} else {
				s.delta[int(state)*s.classes+c] = next
			}
		}
	}
}

// scan sets in found every needle that text contains.
func (s *needleSet) scan(text string, found *foundNeedles) {
	state := 0
	for i := 0; i < len(text); i++ {
		state = int(s.delta[state*s.classes+int(s.class[text[i]])])
		for _, id := range s.out[state] {
			found.set(id)
		}
	}
}
