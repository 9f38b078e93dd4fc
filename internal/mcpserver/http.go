package mcpserver

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"net"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// maxExtensionRequest bounds the body of a request the HTTP handler reads
// to see whether it is one of the extension's: a skills/get is one URI.
const maxExtensionRequest = 1 << 20

// HTTPHandler wraps the SDK's Streamable HTTP handler: a POST that is one
// call of the extension's (skills/list, skills/get,
// resources/directory/read), and that the SDK itself would accept, is
// answered here as a JSON response (which Streamable HTTP allows for any
// request). Everything else goes on to next unchanged, body
// included, so the SDK answers it or says what is wrong with it.
//
// What the SDK would check is checked first, and a request that fails is
// left to the SDK, which refuses it with its own status: the body must be
// application/json (a page elsewhere cannot send that without a CORS
// preflight), the Accept header must take both JSON and an event stream,
// a browser's cross-origin request is refused, and on a loopback listener
// a Host that is not loopback (DNS rebinding) is refused with 403. The
// session id, if any, is neither checked nor echoed: the answer does not
// depend on a session.
func (b *Bridge) HTTPHandler(next http.Handler) http.Handler {
	cross := http.NewCrossOriginProtection()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Body == nil || !sdkWouldTake(r) {
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
		if err := cross.Check(r); err != nil {
			http.Error(w, "Forbidden: "+err.Error(), http.StatusForbidden)
			return
		}
		out, err := jsonrpc.EncodeMessage(b.answer(r.Context(), req))
		if err != nil {
			http.Error(w, "Internal Server Error: "+err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(out)
	})
}

// sdkWouldTake reports whether the SDK's handler would accept a POST's
// headers: a JSON body, and an Accept of both JSON and an event stream.
func sdkWouldTake(r *http.Request) bool {
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		return false
	}
	var jsonOK, streamOK bool
	for _, v := range r.Header.Values("Accept") {
		for _, token := range strings.Split(v, ",") {
			base, _, _ := strings.Cut(token, ";")
			switch strings.ToLower(strings.TrimSpace(base)) {
			case "application/json", "application/*":
				jsonOK = true
			case "text/event-stream", "text/*":
				streamOK = true
			case "*/*":
				jsonOK, streamOK = true, true
			}
		}
	}
	return jsonOK && streamOK
}

// extensionCall decodes body as one call of the extension's. The
// method is decoded as JSON, so an escaped name ("skills\/list") is seen
// for what it is.
func extensionCall(body []byte) (*jsonrpc.Request, bool) {
	if len(body) > maxExtensionRequest {
		return nil, false
	}
	if t := bytes.TrimSpace(body); len(t) == 0 || t[0] != '{' {
		return nil, false // a batch, or not JSON: the SDK says what is wrong
	}
	var probe struct {
		Method string `json:"method"`
	}
	if json.Unmarshal(body, &probe) != nil || !extensionMethod(probe.Method) {
		return nil, false
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
