package mcpserver

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// maxExtensionRequest bounds the body of a request the HTTP handler reads
// to see whether it is one of the extension's: a skills/get is one URI.
const maxExtensionRequest = 1 << 20

// HTTPHandler wraps the SDK's Streamable HTTP handler: a POST that is one
// skills/list or skills/get call is answered here, as a JSON response
// (which Streamable HTTP allows for any request); everything else,
// including batches and the body of any other call, goes on to next
// unchanged. The SDK's protection against DNS rebinding is kept: on a
// loopback listener, a Host that is not loopback is refused.
func (b *Bridge) HTTPHandler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Body == nil {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, maxExtensionRequest+1))
		if err != nil {
			http.Error(w, "Bad Request: reading the body: "+err.Error(), http.StatusBadRequest)
			return
		}
		req, ok := extensionCall(body)
		if !ok {
			r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), r.Body))
			next.ServeHTTP(w, r)
			return
		}
		if rebinding(r) {
			http.Error(w, "Forbidden: invalid Host header "+r.Host, http.StatusForbidden)
			return
		}
		out, err := jsonrpc.EncodeMessage(b.answer(r.Context(), req))
		if err != nil {
			http.Error(w, "Internal Server Error: "+err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		if id := r.Header.Get("Mcp-Session-Id"); id != "" {
			w.Header().Set("Mcp-Session-Id", id)
		}
		_, _ = w.Write(out)
	})
}

// extensionCall decodes body as one skills/list or skills/get call.
func extensionCall(body []byte) (*jsonrpc.Request, bool) {
	if len(body) > maxExtensionRequest || !bytes.Contains(body, []byte(`"skills/`)) {
		return nil, false
	}
	if t := bytes.TrimSpace(body); len(t) == 0 || t[0] != '{' {
		return nil, false // a batch, or not JSON: the SDK says what is wrong
	}
	msg, err := jsonrpc.DecodeMessage(body)
	if err != nil {
		return nil, false
	}
	req, ok := msg.(*jsonrpc.Request)
	if !ok || !req.IsCall() || !extensionMethod(req.Method) {
		return nil, false
	}
	return req, true
}

// rebinding reports a request to a loopback listener naming a host that
// is not loopback: a page elsewhere reaching the server through DNS.
func rebinding(r *http.Request) bool {
	local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok || local == nil {
		return false
	}
	return loopback(local.String()) && !loopback(r.Host)
}

func loopback(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
