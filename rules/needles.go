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

	// The compiled automaton: a row of delta per state, an entry per byte
	// class, each the next state shifted left once, its low bit saying
	// whether some needle ends there. Entries of 16 bits keep the table
	// small enough for the processor's caches.
	class   [256]uint8 // byte -> class; 0 is "a byte no needle has"
	classes int
	delta   []uint16   // state*classes + class -> next state<<1 | ends
	out     [][]uint16 // state -> the needles that end here
}

// maxNeedles bounds the set, so the found bitmap fits in a failureView.
const maxNeedles = 64 * len(foundNeedles{})

// foundNeedles is a bitmap of needle indexes.
type foundNeedles [16]uint64

func (f *foundNeedles) set(i uint16)      { f[i/64] |= 1 << (i % 64) }
func (f *foundNeedles) has(i uint16) bool { return f[i/64]&(1<<(i%64)) != 0 }

// needleMask is a set of needle indexes as the words of a foundNeedles
// bitmap it touches: a condition asks whether any of its needles was found
// with an AND per word instead of a test per needle.
type needleMask []maskWord

type maskWord struct {
	word uint16
	bits uint64
}

// maskOf returns the mask of ids.
func maskOf(ids []uint16) needleMask {
	var m needleMask
	for _, id := range ids {
		w, bit := id/64, uint64(1)<<(id%64)
		if i := len(m) - 1; i >= 0 && m[i].word == w {
			m[i].bits |= bit
			continue
		}
		found := false
		for i := range m {
			if m[i].word == w {
				m[i].bits |= bit
				found = true
				break
			}
		}
		if !found {
			m = append(m, maskWord{word: w, bits: bit})
		}
	}
	return m
}

// any reports whether f holds any needle of m.
func (m needleMask) any(f *foundNeedles) bool {
	for _, w := range m {
		if f[w.word]&w.bits != 0 {
			return true
		}
	}
	return false
}

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
	if len(trie) > 1<<15 {
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
	// The same transitions, each with a bit for "a needle ends there".
	s.delta = make([]uint16, len(next))
	for i, to := range next {
		e := to << 1
		if len(s.out[to]) > 0 {
			e |= 1
		}
		s.delta[i] = e
	}
}

// scan sets in found every needle that text contains. A long text is read
// as four stretches at once, each running on from where the next begins by
// the length of the longest needle less one, so a needle that straddles two
// stretches is read whole: four independent walks of the table keep the
// processor busy while each waits for its next row.
func (s *needleSet) scan(text string, found *foundNeedles) {
	if len(text) < 4*laneMin || s.longest == 0 {
		s.scanLaneFrom(text, 0, found)
		return
	}
	q, overlap := len(text)/4, s.longest-1
	start := [4]int{0, q, 2 * q, 3 * q}
	end := [4]int{min(len(text), q+overlap), min(len(text), 2*q+overlap), min(len(text), 3*q+overlap), len(text)}
	common := len(text)
	for k := range start {
		common = min(common, end[k]-start[k])
	}
	delta, class, classes := s.delta, &s.class, uint(s.classes)
	var st [4]uint
	t0, t1, t2, t3 := text[start[0]:], text[start[1]:], text[start[2]:], text[start[3]:]
	for i := 0; i < common; i++ {
		e0 := delta[st[0]*classes+uint(class[t0[i]])]
		e1 := delta[st[1]*classes+uint(class[t1[i]])]
		e2 := delta[st[2]*classes+uint(class[t2[i]])]
		e3 := delta[st[3]*classes+uint(class[t3[i]])]
		st[0], st[1], st[2], st[3] = uint(e0>>1), uint(e1>>1), uint(e2>>1), uint(e3>>1)
		if (e0|e1|e2|e3)&1 != 0 {
			for k, e := range [4]uint16{e0, e1, e2, e3} {
				if e&1 != 0 {
					s.record(st[k], found)
				}
			}
		}
	}
	for k := range start {
		s.scanLaneFrom(text[start[k]+common:end[k]], st[k], found)
	}
}

// laneMin is the shortest stretch worth a lane of its own.
const laneMin = 256

// scanLaneFrom reads text from state.
func (s *needleSet) scanLaneFrom(text string, state uint, found *foundNeedles) {
	delta, class, classes := s.delta, &s.class, uint(s.classes)
	for i := 0; i < len(text); i++ {
		e := delta[state*classes+uint(class[text[i]])]
		state = uint(e >> 1)
		if e&1 != 0 {
			s.record(state, found)
		}
	}
}

// record sets in found the needles that end in state.
func (s *needleSet) record(state uint, found *foundNeedles) {
	for _, id := range s.out[state] {
		found.set(id)
	}
}
