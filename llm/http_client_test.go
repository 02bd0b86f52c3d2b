package llm_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/loopctl-go/reflection/llm"
	"github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// bodyServer answers every request with body; chunked hides its length.
func bodyServer(t *testing.T, status int, body string, chunked bool) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		if !chunked {
			w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		}
		w.WriteHeader(status)
		if chunked {
			for rest := body; len(rest) > 0; {
				n := min(len(rest), 1000)
				_, _ = io.WriteString(w, rest[:n])
				w.(http.Flusher).Flush()
				rest = rest[n:]
			}
			return
		}
		_, _ = io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func clientWith(srv *httptest.Server, hc *http.Client) *openai.Client {
	cfg := openai.DefaultConfig("test-key")
	cfg.BaseURL = srv.URL + "/v1"
	cfg.HTTPClient = hc
	return openai.NewClientWithConfig(cfg)
}

func TestHTTPClientCutsResponseBodies(t *testing.T) {
	good := completion(answer(false, "low", nil))
	padded := completion(answer(false, "low", nil) + strings.Repeat(" ", 10_000))
	tests := []struct {
		name    string
		status  int
		body    string
		chunked bool
		limit   int64
		wantErr bool
	}{
		{name: "under the limit", status: http.StatusOK, body: good, limit: int64(len(good)) + 1},
		{name: "exactly at the limit", status: http.StatusOK, body: good, limit: int64(len(good))},
		{name: "exactly at the limit, chunked", status: http.StatusOK, body: good, chunked: true, limit: int64(len(good))},
		{name: "one byte over, by its Content-Length", status: http.StatusOK, body: good, limit: int64(len(good)) - 1, wantErr: true},
		{name: "one byte over, chunked", status: http.StatusOK, body: good, chunked: true, limit: int64(len(good)) - 1, wantErr: true},
		{name: "far over, chunked", status: http.StatusOK, body: padded, chunked: true, limit: 2000, wantErr: true},
		{name: "an error response over the limit", status: http.StatusBadGateway, body: apiError(strings.Repeat("e", 5000), "server_error"),
			chunked: true, limit: 2000, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := bodyServer(t, tt.status, tt.body, tt.chunked)
			hc := llm.NewHTTPClient(tt.limit, srv.Client())
			_, err := llm.New(clientWith(srv, hc)).Analyze(context.Background(), readFailure())
			if !tt.wantErr {
				require.NoError(t, err)
				return
			}
			requireInternal(t, err)
			assert.ErrorIs(t, err, llm.ErrResponseTooLarge)
			assert.Contains(t, err.Error(), "response body exceeds the limit of "+strconv.FormatInt(tt.limit, 10)+" bytes")
		})
	}
}

// countingTransport counts the round trips it passes on.
type countingTransport struct {
	next http.RoundTripper
	n    atomic.Int64
}

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return c.next.RoundTrip(r)
}

func TestHTTPClientWrapsItsBase(t *testing.T) {
	srv := bodyServer(t, http.StatusOK, completion(answer(false, "low", nil)), false)
	counting := &countingTransport{next: srv.Client().Transport}
	base := &http.Client{Transport: counting}
	hc := llm.NewHTTPClient(0, base)
	assert.Same(t, counting, base.Transport, "the base client is not changed")
	assert.NotSame(t, base, hc)
	_, err := llm.New(clientWith(srv, hc)).Analyze(context.Background(), readFailure())
	require.NoError(t, err)
	assert.EqualValues(t, 1, counting.n.Load(), "requests go through the base client's transport")
}

func TestHTTPClientDefaults(t *testing.T) {
	srv := bodyServer(t, http.StatusOK, completion(answer(false, "low", nil)), true)
	for _, limit := range []int64{0, -1} {
		hc := llm.NewHTTPClient(limit, nil)
		_, err := llm.New(clientWith(srv, hc)).Analyze(context.Background(), readFailure())
		require.NoError(t, err, "a nil base uses the default transport")
	}
	big := bodyServer(t, http.StatusOK, completion(strings.Repeat("x", llm.DefaultMaxResponseBytes)), true)
	_, err := llm.New(clientWith(big, llm.NewHTTPClient(0, nil))).Analyze(context.Background(), readFailure())
	require.ErrorIs(t, err, llm.ErrResponseTooLarge, "0 means DefaultMaxResponseBytes")
}
