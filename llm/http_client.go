package llm

import (
	"errors"
	"io"
	"net/http"
	"strconv"
)

// DefaultMaxResponseBytes is the size limit of NewHTTPClient when it is given
// none: room for an answer of 1 MiB, the most Analyze reads, escaped as JSON.
const DefaultMaxResponseBytes = 4 << 20

// ErrResponseTooLarge is matched, with errors.Is, by the error of reading a
// response body past the limit of a client made by NewHTTPClient.
var ErrResponseTooLarge = errors.New("llm: response body too large")

// NewHTTPClient returns an *http.Client for openai.ClientConfig.HTTPClient
// whose response bodies are cut at maxResponseBytes: reading past the limit
// fails with an error that wraps ErrResponseTooLarge, and a response whose
// Content-Length is over it fails before its body is read. go-openai reads a
// whole response before Analyze can apply its own cap, so without a limit a
// hostile or broken server can make it allocate without bound.
//
// The client is a copy of base (http.DefaultClient when base is nil) whose
// transport wraps base's (http.DefaultTransport when that is nil); base is
// not changed. maxResponseBytes of 0 or below means DefaultMaxResponseBytes.
//
//	cfg := openai.DefaultConfig(key)
//	cfg.HTTPClient = llm.NewHTTPClient(0, nil)
//	client := openai.NewClientWithConfig(cfg)
func NewHTTPClient(maxResponseBytes int64, base *http.Client) *http.Client {
	if maxResponseBytes <= 0 {
		maxResponseBytes = DefaultMaxResponseBytes
	}
	if base == nil {
		base = http.DefaultClient
	}
	c := *base
	next := c.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	c.Transport = &limitedTransport{next: next, limit: maxResponseBytes}
	return &c
}

// limitedTransport cuts every response body at limit bytes.
type limitedTransport struct {
	next  http.RoundTripper
	limit int64
}

func (t *limitedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err != nil || resp.Body == nil {
		return resp, err
	}
	if resp.ContentLength > t.limit {
		_ = resp.Body.Close()
		return nil, t.tooLarge()
	}
	resp.Body = &limitedBody{body: resp.Body, left: t.limit, err: t.tooLarge}
	return resp, nil
}

func (t *limitedTransport) tooLarge() error {
	return &tooLargeError{limit: t.limit}
}

// tooLargeError wraps ErrResponseTooLarge and names the limit.
type tooLargeError struct{ limit int64 }

func (e *tooLargeError) Error() string {
	return "llm: response body exceeds the limit of " + strconv.FormatInt(e.limit, 10) + " bytes"
}

func (e *tooLargeError) Unwrap() error { return ErrResponseTooLarge }

// limitedBody reads at most left more bytes of body; one byte more is an
// error. A body that ends exactly at the limit reads as usual.
type limitedBody struct {
	body io.ReadCloser
	left int64
	err  func() error
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if b.left < 0 {
		return 0, b.err()
	}
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1] // one byte past the limit tells "over" from "exactly at"
	}
	n, err := b.body.Read(p)
	b.left -= int64(n)
	if b.left < 0 {
		return n + int(b.left), b.err()
	}
	return n, err
}

func (b *limitedBody) Close() error { return b.body.Close() }
