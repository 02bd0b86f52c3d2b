package rules

import (
	"math"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestRetryAfterInText(t *testing.T) {
	now := time.Date(2015, 10, 21, 7, 27, 30, 0, time.UTC)
	tests := []struct {
		text string
		want time.Duration
		ok   bool
	}{
		{"Retry-After: 30", 30 * time.Second, true},
		{"retry-after: Wed, 21 Oct 2015 07:28:00 GMT", 30 * time.Second, true},
		{"Retry-After: Wednesday, 21-Oct-15 07:28:10 GMT", 40 * time.Second, true},
		{"Retry-After: Wed Oct 21 07:28:00 2015", 30 * time.Second, true},
		{"Retry-After: Wed, 21 Oct 2015 07:00:00 GMT", 0, true}, // a date in the past
		{`{"retry_after": 0.5, "global": false}`, 500 * time.Millisecond, true},
		{"x-ms-retry-after-ms: 2000", 2 * time.Second, true},
		{"Please try again in 1.5s.", 1500 * time.Millisecond, true},
		{"Please try again in 6ms.", 6 * time.Millisecond, true},
		{"Please try again in 1m47.5854s.", time.Minute + 47585400*time.Microsecond, true},
		{"Too Many Requests: retry after 35", 35 * time.Second, true},
		{"Please retry after 6 seconds.", 6 * time.Second, true},
		{"Please retry in 3 seconds", 3 * time.Second, true},
		{"you may retry this request in 30 seconds", 30 * time.Second, true},
		{"Try again in 2 minutes", 2 * time.Minute, true},
		{"retry after 1 hour", time.Hour, true},
		{"Please wait 30 seconds before retrying", 30 * time.Second, true},
		{`"retryDelay": "43s"`, 43 * time.Second, true},
		{"retry after 99999999999999999999 seconds", math.MaxInt64, true},
		{"retry after 100000000000000000000 seconds", math.MaxInt64, true},
		{"retry after 99999999999999999999.5 seconds", math.MaxInt64, true},
		{"retry_after: 1m30s", 90 * time.Second, true},
		{"first: try again in 2s; then Retry-After: 9", 2 * time.Second, true},
		{"Please retry in 2m30s", 150 * time.Second, true},
		{"try again in 2 minutes and 30 seconds", 150 * time.Second, true},
		{"retry after 1 hour, 30 minutes", 90 * time.Minute, true},
		{"Please wait a few minutes before you try again.", 3 * time.Minute, true},
		{"try again in a minute", time.Minute, true},
		{"retry in an hour", time.Hour, true},
		{"please wait a couple of minutes", 2 * time.Minute, true},
		{"try again in several minutes", 5 * time.Minute, true},
		{"wait a few seconds", 3 * time.Second, true},
		{"your rate limit resets in 5 minutes.", 5 * time.Minute, true},
		{"Rate limit will reset in 45 seconds", 45 * time.Second, true},
		{`{"error":"Model x is currently loading","estimated_time":20.0}`, 20 * time.Second, true},
		{"X-RateLimit-Reset-After: 1.5", 1500 * time.Millisecond, true},
		{"x-ratelimit-reset: 30", 30 * time.Second, true},
		{"x-ratelimit-reset: " + strconv.FormatInt(now.Add(45*time.Second).Unix(), 10), 45 * time.Second, true},
		{"x-ratelimit-reset: " + strconv.FormatInt(now.Add(-time.Hour).Unix(), 10), 0, true}, // a reset in the past
		{"Request was throttled. Expected available in 9 seconds.", 9 * time.Second, true},
		{"Take a break for 5 seconds before trying again.", 5 * time.Second, true},
		{"this model is not available in 2 regions", 0, false},
		{"wait minutes", 0, false},
		{"waiting for a response from the server", 0, false},
		{"Please try again later.", 0, false},
		{"try again in a moment", 0, false},
		{"Timed out while waiting for response. Waited 5.0 seconds.", 0, false},
		{"retry_after must be a number", 0, false},
		{"", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			got, ok := retryAfterInText(tt.text, lowerASCII(tt.text), func() time.Time { return now })
			assert.Equal(t, tt.ok, ok)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestStatusOfText(t *testing.T) {
	tests := []struct {
		text string
		want int
	}{
		{"unexpected status: 503 Service Unavailable", 503},
		{"error, status code: 429, status: 429 Too Many Requests", 429},
		{"OpenAI API error: 429 Too Many Requests", 429},
		{"https response error StatusCode: 403, RequestID: x", 403},
		{"googleapi: Error 403: The caller does not have permission, forbidden", 403},
		{"HTTP/1.1 503 Service Unavailable", 503},
		{"urllib.error.HTTPError: HTTP Error 503: Slow Down", 503},
		{"Request failed with status code 502", 502},
		{"Server returned HTTP response code: 504 for URL", 504},
		{"The remote server returned an error: (429) Too Many Requests.", 429},
		{"429 Rate limit reached for gpt-4o", 429},
		{`{"error_code": 403, "description": "Forbidden"}`, 403},
		{"RESPONSE 429: 429 Too Many Requests", 429},
		{"Error code: 529 - {'type': 'error'}", 529},
		{"503", 503},
		{"upstream answered 429 Too Many Requests", 429},
		{"proxy returned 503 Service Unavailable", 503},
		{"unexpected status code: 103", 103},
		{"status 503.", 503},
		{"http 503.5", 0},
		{"status code: 503a", 0},
		{"status code: 503z", 0},
		{"Error 1213: Deadlock found", 0},
		{"ERROR 1045 (28000): Access denied", 0},
		{"syntax error at line 503", 0},
		{"listening on port 5032", 0},
		{"exit code 1", 0},
		{"", 0},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			assert.Equal(t, tt.want, statusOfText(lowerASCII(tt.text)))
		})
	}
}

func TestLowerASCIIAndScanWindow(t *testing.T) {
	assert.Equal(t, "already lower", lowerASCII("already lower"))
	assert.Equal(t, "az", lowerASCII("AZ"), "the first and last letters")
	assert.Equal(t, "az", lowerASCII("aZ"))
	assert.Equal(t, "@[`{", lowerASCII("@[`{"), "the bytes around the letters")
	assert.Equal(t, "mixed Ä case", lowerASCII("MiXeD Ä CaSe"))
	s := "İSTANBUL"
	assert.Len(t, lowerASCII(s), len(s), "offsets stay those of the original")

	buf := make([]byte, scanLimit+1)
	assert.Equal(t, "mixed Ä case", lowerInto(buf, "MiXeD Ä CaSe"), "lowerInto reads as lowerASCII does")
	assert.Equal(t, "az", lowerInto(buf, "az"))
	short := strings.Repeat("a", scanLimit)
	assert.Equal(t, short, windowInto(buf, short))
	long := "HEAD" + strings.Repeat("x", 3*scanLimit) + "TAIL"
	w := windowInto(buf, long)
	assert.Len(t, w, scanLimit+1)
	assert.True(t, strings.HasPrefix(w, "HEAD"))
	assert.True(t, strings.HasSuffix(w, "TAIL"))
}

func TestEditDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"search", "search", 0},
		{"serach", "search", 1}, // a swap of neighbours
		{"readfile", "readfiles", 1},
		{"kitten", "sitting", 3},
		{"", "abc", 3},
		{"abc", "bc", 1}, // a deletion at the start
	}
	rows := newDistanceRows(16)
	for _, tt := range tests {
		assert.Equal(t, tt.want, editDistanceWithin([]rune(tt.a), []rune(tt.b), 10, rows), "%q %q", tt.a, tt.b)
		assert.Equal(t, tt.want, editDistanceWithin([]rune(tt.b), []rune(tt.a), 10, rows), "%q %q", tt.b, tt.a)
		if tt.want > 0 {
			assert.Equal(t, tt.want, editDistanceWithin([]rune(tt.a), []rune(tt.b), tt.want-1, rows),
				"%q %q: past the limit, the limit plus one", tt.a, tt.b)
		}
	}
	assert.Equal(t, 0, editDistanceWithin([]rune("fetch"), []rune("fetch"), 0, rows), "equal names within a limit of 0")
	assert.Equal(t, 2, editDistanceWithin([]rune("abc"), []rune("abcde"), 2, rows), "lengths exactly the limit apart")
	assert.Equal(t, 2, editDistanceWithin([]rune("abcde"), []rune("abc"), 2, rows))
	assert.True(t, sameToolName("readFile", "read_file"))
	assert.True(t, sameToolName("READ_FILE", "read-file"))
	assert.True(t, sameToolName("getJSONData", "get_json_data"))
	assert.False(t, sameToolName("read_file", "read_files"))
	assert.False(t, sameToolName("read_files", "read_file"))
	assert.Equal(t, "getjsondata", string(keyOf("getJSONData").ordered))
	assert.Equal(t, "filereadtext", string(keyOf("ReadTextFile").sorted), "words split at capitals, the first one too")
	assert.Equal(t, "getjson", string(keyOf("getJSON").sorted), "a word in capitals at the end")

	k := keyOf("search_web")
	assert.Equal(t, string(keyOf("web-search").sorted), string(k.sorted))
}

// TestEditDistanceWithinMatchesFullTable checks the banded distance against
// the whole table, on every pair of short strings over a small alphabet (so
// swaps, repeats and long runs all occur) and every limit up to their
// length.
func TestEditDistanceWithinMatchesFullTable(t *testing.T) {
	var words []string
	var grow func(prefix string)
	grow = func(prefix string) {
		words = append(words, prefix)
		if len(prefix) < 4 {
			for _, c := range "abc" {
				grow(prefix + string(c))
			}
		}
	}
	grow("")
	rows := newDistanceRows(4)
	for _, a := range words {
		for _, b := range words {
			want := fullEditDistance([]rune(a), []rune(b))
			for limit := 0; limit <= 5; limit++ {
				got := editDistanceWithin([]rune(a), []rune(b), limit, rows)
				if want <= limit && got != want || want > limit && got != limit+1 {
					t.Fatalf("editDistanceWithin(%q, %q, %d) = %d; the distance is %d", a, b, limit, got, want)
				}
			}
		}
	}
}

// fullEditDistance is the optimal-string-alignment distance by the whole
// table, the textbook way.
func fullEditDistance(a, b []rune) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}

// FuzzEditDistanceWithin checks the banded distance against the whole table
// on names the fuzzer chooses (the called name is the model's).
func FuzzEditDistanceWithin(f *testing.F) {
	f.Add("web_serach", "web_search", 2)
	f.Add("readFile", "read_file", 0)
	f.Add("", "abc", 1)
	f.Fuzz(func(t *testing.T, a, b string, limit int) {
		ra, rb := []rune(a), []rune(b)
		if len(ra) > 64 || len(rb) > 64 || limit < -1 || limit > 70 {
			return
		}
		want := fullEditDistance(ra, rb)
		got := editDistanceWithin(ra, rb, limit, newDistanceRows(len(rb)))
		if want <= limit && got != want || want > limit && got != limit+1 {
			t.Fatalf("editDistanceWithin(%q, %q, %d) = %d; the distance is %d", a, b, limit, got, want)
		}
	})
}

// TestNeedleSetLimits: a needle must be lower case, the set holds at most
// maxNeedles needles, and its trie at most 1<<15 states (an entry of its
// table is a state and a bit in 16 bits).
func TestNeedleSetLimits(t *testing.T) {
	for _, n := range []string{"Abc", "abZ"} {
		s := &needleSet{}
		s.add(n)
		assert.Panics(t, s.compile, "the needle %q is not lower case", n)
	}
	full := &needleSet{}
	for i := range maxNeedles {
		full.add(strconv.Itoa(i))
	}
	assert.NotPanics(t, full.compile, "maxNeedles needles fit")
	assert.Panics(t, func() { full.add("one more") })

	widest := &needleSet{}
	widest.add(strings.Repeat("a", 1<<15-1)) // with the root, 1<<15 states
	assert.NotPanics(t, widest.compile)
	tooWide := &needleSet{}
	tooWide.add(strings.Repeat("a", 1<<15))
	assert.Panics(t, tooWide.compile)

	folded := &needleSet{foldCase: true}
	folded.add("az")
	folded.compile()
	var found foundNeedles
	folded.scan("xAZx", &found)
	assert.True(t, found.has(0), "a set with foldCase reads A and Z as a and z")
}

// TestSameToolName: names compare by their letters and digits, in any case,
// whatever separates them.
func TestSameToolName(t *testing.T) {
	assert.True(t, sameToolName("s3_v0", "S3V0"))
	assert.True(t, sameToolName("a\x7fb", "ab"), "DEL is a separator")
	assert.True(t, sameToolName("Zip_Archive", "zip-archive"))
	for _, word := range []string{"0", "9", "a", "z", "A", "Z", "09", "az", "AZ"} {
		assert.False(t, sameToolName(word, ""), "%q is made of letters or digits", word)
		assert.False(t, sameToolName("", word))
	}
	assert.False(t, sameToolName("wget", "web_search"), "the same first letter is not the same name")
}

// TestNeedleScanLanes: reading a long text as four stretches at once finds
// what one walk over it finds, a needle that straddles two stretches
// included, wherever the needles stand.
func TestNeedleScanLanes(t *testing.T) {
	set := &needleSet{}
	needles := []string{"connection reset", "reset", "deadline exceeded", "x", "rate limit reached for"}
	set.add(needles...)
	set.compile()
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 500 {
		n := 4*laneMin + rng.IntN(4000)
		b := make([]byte, n)
		for i := range b {
			b[i] = "abcdefgh -"[rng.IntN(10)]
		}
		// A needle across each quarter's start, and one at either end.
		for _, at := range []int{0, n/4 - 3, n/2 - 7, 3*n/4 - 1, n - 20} {
			nd := needles[rng.IntN(len(needles))]
			if at >= 0 && at+len(nd) <= n {
				copy(b[at:], nd)
			}
		}
		text := string(b)
		var lanes, one foundNeedles
		set.scan(text, &lanes)
		set.scanLaneFrom(text, 0, &one)
		if lanes != one {
			t.Fatalf("trial %d: four lanes found %v, one walk %v", trial, lanes, one)
		}
	}
}

// TestStatusWordsReadAsThePatternsDid: the plain comparisons that read the
// words around a number agree with the regular expressions they replaced,
// on texts made of the words that matter.
func TestStatusWordsReadAsThePatternsDid(t *testing.T) {
	intro := regexp.MustCompile(`(?:^|[^\w])(?:status(?:[ _-]?code)?|http(?:/\d(?:\.\d)?)?(?: error| status| response code)?|` +
		`response(?: code| status)?|error(?:[ _-]code)?|code)["']?\s*[:=]?\s*\(?["']?$`)
	reason := regexp.MustCompile(`^\)?:? (?:too many requests|service unavailable|bad gateway|gateway time-?out|` +
		`internal server error|request time-?out|unauthorized|forbidden|server error|client error|slow down|overloaded)`)
	pieces := []string{"status", "code", "error", "response", "http", "/1.1", "/2", "/1", ".", "1", " ", "_", "-",
		":", "=", "(", ")", "\"", "'", "x", "s", "\t", "bad gateway", "too many requests", "gateway time-out", "overloaded"}
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 200000 {
		var b strings.Builder
		for range 1 + rng.IntN(6) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		s := b.String()
		if got, want := introducesStatus(s), intro.MatchString(s); got != want {
			t.Fatalf("trial %d: introducesStatus(%q) = %v, the pattern says %v", trial, s, got, want)
		}
		if got, want := beforeReason(s), reason.MatchString(s); got != want {
			t.Fatalf("trial %d: beforeReason(%q) = %v, the pattern says %v", trial, s, got, want)
		}
	}
}

// TestLimitFigures: the figures of a rate limit's message are read as OpenAI
// and Groq write them, and nothing else passes for them.
func TestLimitFigures(t *testing.T) {
	tests := []struct {
		text             string
		limit, requested int
		ok               bool
	}{
		{"limit 30000, used 29937, requested 385. please", 30000, 385, true},
		{"limit 7000, used 0, requested ~12903. please", 7000, 12903, true},
		{"limit: 30,000 / min, used: 10, requested: 40,000", 30000, 40000, true},
		{"limit 200; requested 1", 200, 1, true},
		{"limit 99999999999999999999999, used 1, requested 2", 0, 0, false},
		{"limit reached for model", 0, 0, false},
		{"limit 30000, used 29937", 0, 0, false},
		{"limit , requested 5", 0, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			limit, requested, ok := limitFigures(tt.text)
			assert.Equal(t, tt.ok, ok)
			if tt.ok {
				assert.Equal(t, tt.limit, limit)
				assert.Equal(t, tt.requested, requested)
			}
		})
	}
}
