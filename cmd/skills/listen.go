package main

import (
	"net"
	"net/netip"
	"strings"
)

// checkListen refuses an --http address that listens beyond this machine
// while skills mcp has no authentication configured
// (docs/mcp.md#authentication): over it, anyone who can reach the port
// reads every skill and calls the approved tools. A loopback IP or
// localhost passes; an empty host (all interfaces), 0.0.0.0, [::], any
// other address or a host name passes only when authenticated (bearer
// tokens or OAuth are configured), or when allowUnauthenticated says the
// operator accepts the risk (behind an authenticating proxy, say).
func checkListen(addr string, authenticated, allowUnauthenticated bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return usagef("skills mcp: --http %q: %v; give host:port, e.g. 127.0.0.1:8765", addr, err)
	}
	if isLoopback(host) || authenticated || allowUnauthenticated {
		return nil
	}
	where := host
	if host == "" {
		where = "every interface"
	}
	return usagef("skills mcp: --http %s listens on %s, beyond this machine, without authentication: "+
		"anyone who can reach it reads every skill and calls the approved tools. Configure authentication: "+
		"--auth-tokens FILE (lines NAME SCOPES TOKEN, mode 0600) or --auth-tokens-env VAR for bearer tokens you issue, "+
		"or --oauth-issuer URL --oauth-jwks URL for OAuth access tokens; or listen on 127.0.0.1, or give "+
		"--allow-unauthenticated to accept the risk (behind an authenticating proxy)", addr, where)
}

// isLoopback reports whether host names this machine only: a loopback IP
// literal, or localhost.
func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"))
	return err == nil && ip.IsLoopback()
}
