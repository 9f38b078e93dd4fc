package worker

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// selfSigned writes a self-signed certificate for 127.0.0.1 and its key
// into dir, and gives their paths and a pool that trusts it.
func selfSigned(t *testing.T, dir, name string) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, name+".crt"), filepath.Join(dir, name+".key")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certFile, keyFile, pool
}

// With a certificate and its key, the server serves HTTPS at the
// https:// endpoint it announces, and an MCP client that trusts the
// certificate initializes over it.
func TestHTTPServesTLS(t *testing.T) {
	certFile, keyFile, pool := selfSigned(t, t.TempDir(), "server")
	server := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	endpoint := startHTTP(t, server, HTTPOptions{TLSCert: certFile, TLSKey: keyFile})
	if !strings.HasPrefix(endpoint, "https://127.0.0.1:") {
		t.Fatalf("endpoint %s; want https://127.0.0.1:…", endpoint)
	}
	ctx, cancel := context.WithTimeout(t.Context(), waitTimeout)
	defer cancel()
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: client, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatalf("an MCP client over https: %v", err)
	}
	defer cs.Close() //nolint:errcheck // test teardown
	if err := cs.Ping(ctx, nil); err != nil {
		t.Errorf("ping over https: %v", err)
	}
	res, err := http.Post(strings.Replace(endpoint, "https", "http", 1), "application/json", strings.NewReader(initializeBody))
	if err == nil {
		res.Body.Close()
		if res.StatusCode != http.StatusBadRequest {
			t.Errorf("plain HTTP to the TLS endpoint: %d; want 400 (net/http's answer to plain HTTP on TLS)", res.StatusCode)
		}
	}
}

// A certificate pair that cannot serve is refused at start with an error
// naming both files: missing, not PEM, a key not the certificate's, or
// one without the other.
func TestHTTPOptionsRefuseABadTLSPair(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile, _ := selfSigned(t, dir, "a")
	_, otherKey, _ := selfSigned(t, dir, "b")
	garbage := filepath.Join(dir, "garbage.pem")
	if err := os.WriteFile(garbage, []byte("not a certificate"), 0o600); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.pem")
	for _, tc := range []struct{ name, cert, key, want string }{
		{"missing", missing, keyFile, "no such file"},
		{"not PEM", garbage, keyFile, "failed to find any PEM data"},
		{"another key", certFile, otherKey, "private key does not match public key"},
	} {
		_, err := HTTPOptions{TLSCert: tc.cert, TLSKey: tc.key}.check()
		if err == nil || !strings.Contains(err.Error(), tc.cert) || !strings.Contains(err.Error(), tc.key) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v; want an error naming %s, %s and %q", tc.name, err, tc.cert, tc.key, tc.want)
		}
	}
	if _, err := (HTTPOptions{TLSCert: certFile}).check(); err == nil || !strings.Contains(err.Error(), "together") {
		t.Errorf("a certificate without its key: %v; want an error asking for both", err)
	}
}
