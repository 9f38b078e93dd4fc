package worker

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
)

// originList is the browser origins allowed to call the Streamable HTTP
// server, normalized (originOf).
type originList map[string]bool

// newOriginList checks each of origins and lists it.
func newOriginList(origins []string) (originList, error) {
	list := make(originList, len(origins))
	for _, o := range origins {
		norm, ok := originOf(o)
		if !ok {
			return nil, fmt.Errorf("allowed origin %q is not an origin: give scheme://host[:port], such as https://app.example or http://localhost:6274, with no path", o)
		}
		list[norm] = true
	}
	return list, nil
}

// originOf gives the origin s names in the form browsers send it (RFC
// 6454: lowercase scheme and host, no default port), and whether s is
// one: a scheme and a host, nothing after them but an optional "/".
func originOf(s string) (string, bool) {
	u, err := url.Parse(s)
	if err != nil || u.Scheme == "" || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" ||
		(u.Path != "" && u.Path != "/") || u.Opaque != "" {
		return "", false
	}
	scheme, host, port := strings.ToLower(u.Scheme), strings.ToLower(u.Hostname()), u.Port()
	if (scheme == "http" && port == "80") || (scheme == "https" && port == "443") {
		port = ""
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		host += ":" + port
	}
	return scheme + "://" + host, true
}

// guard refuses, with 403 and a message saying why, on every method and
// path, a request that a browser page could have been made to send:
//   - one carrying an Origin header not in origins. The MCP specification
//     asks servers to validate Origin; browsers send it on every
//     cross-origin request, the SSE GET included. Requests without one,
//     from clients that are not browsers, pass;
//   - one arriving on a loopback address whose Host is not a loopback
//     name or IP: a page whose host name was made to resolve to 127.0.0.1
//     (DNS rebinding) names its own host.
func guard(origins originList, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if o := r.Header.Get("Origin"); o != "" {
			if norm, ok := originOf(o); !ok || !origins[norm] {
				suggest := "an origin it names"
				if ok {
					suggest = norm
				}
				http.Error(w, fmt.Sprintf("Forbidden: Origin %q is not allowed: skills mcp serves browsers only from the origins given with --allow-origin (none by default); to allow this one, start it with --allow-origin %s", o, suggest), http.StatusForbidden)
				return
			}
		}
		if local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok && isLoopbackAddr(local.String()) && !isLoopbackAddr(r.Host) {
			http.Error(w, fmt.Sprintf("Forbidden: Host %q is not this server's: skills mcp listens on loopback and serves only requests addressed to localhost, 127.0.0.1 or [::1] (DNS rebinding protection)", r.Host), http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// isLoopbackAddr reports whether addr, a host or host:port, names this
// machine only: localhost or a loopback IP.
func isLoopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = strings.TrimSuffix(strings.TrimPrefix(addr, "["), "]")
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}
