package main

import (
	"net"
	"net/netip"
	"strings"
)

// checkListen refuses an --http address that listens beyond this machine
// while skills mcp has no authentication (docs/mcp.md#streamable-http):
// over it, anyone who can reach the port reads every skill and calls the
// approved tools. A loopback IP or localhost passes; an empty host (all
// interfaces), 0.0.0.0, [::], any other address or a host name does not,
// unless allowUnauthenticated says the operator accepts that (behind an
// authenticating proxy, say).
func checkListen(addr string, allowUnauthenticated bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return usagef("skills mcp: --http %q: %v; give host:port, e.g. 127.0.0.1:8765", addr, err)
	}
	if isLoopback(host) || allowUnauthenticated {
		return nil
	}
	where := host
	if host == "" {
		where = "every interface"
	}
	return usagef("skills mcp: --http %s listens on %s, beyond this machine, and skills mcp has no authentication yet: "+
		"anyone who can reach it reads every skill and calls the approved tools. Listen on 127.0.0.1 (behind an "+
		"authenticating proxy if others must reach it), or give --allow-unauthenticated to accept that", addr, where)
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
