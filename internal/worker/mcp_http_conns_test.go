package worker

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/iii-hq/skills-go/internal/engine"
	"github.com/iii-hq/skills-go/internal/iii"
)

// holdConnsEnv, set to "ADDR N", makes the test binary a helper process
// that opens N idle connections to ADDR (holdConns) instead of testing.
const holdConnsEnv = "SKILLS_TEST_HOLD_CONNS"

func TestMain(m *testing.M) {
	if spec := os.Getenv(holdConnsEnv); spec != "" {
		os.Exit(holdConns(spec))
	}
	os.Exit(m.Run())
}

// holdConns opens the connections spec names, a third of each kind an
// abuser holds: connected and silent, halfway through a request's
// headers, and idle after a request. It prints "held N" once they are
// open and holds them until its input closes.
func holdConns(spec string) int {
	addr, count, _ := strings.Cut(spec, " ")
	n, err := strconv.Atoi(count)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s %q: %v\n", holdConnsEnv, spec, err)
		return 2
	}
	conns := make([]net.Conn, 0, n)
	for i := range n {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			fmt.Fprintf(os.Stderr, "connection %d: %v\n", i, err)
			return 1
		}
		conns = append(conns, c)
		switch i % 3 {
		case 1:
			fmt.Fprintf(c, "GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")
		case 2:
			fmt.Fprintf(c, "GET /nothing HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
			if res, err := http.ReadResponse(bufio.NewReader(c), nil); err == nil {
				io.Copy(io.Discard, res.Body) //nolint:errcheck // only idles the connection
				res.Body.Close()
			}
		}
	}
	fmt.Printf("held %d\n", len(conns))
	io.Copy(io.Discard, os.Stdin) //nolint:errcheck // holds until the test ends
	return 0
}

// openFiles is how many descriptors this process has open.
func openFiles(t *testing.T) int {
	t.Helper()
	entries, err := os.ReadDir("/dev/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(entries)
}

// startHTTP serves a bare MCP server over Streamable HTTP with opts on a
// free loopback port until the test ends, and gives its address.
func startHTTP(t *testing.T, server *mcp.Server, opts HTTPOptions) string {
	t.Helper()
	c := testHTTPConfig(t, opts)
	ctx, cancel := context.WithCancel(context.Background())
	addr, done := make(chan string, 1), make(chan error, 1)
	go func() { done <- serveHTTP(ctx, "127.0.0.1:0", server, c, func(u string) { addr <- u }) }()
	t.Cleanup(func() {
		cancel()
		<-done
		for ss := range server.Sessions() {
			ss.Close() //nolint:errcheck // test teardown
		}
	})
	select {
	case u := <-addr:
		return u
	case err := <-done:
		t.Fatal(err)
	}
	return ""
}

// 20,000 idle connections (which once used every descriptor, so new
// clients timed out and the --dev engine beside the server stopped
// accepting workers; issue 27) leave the server holding at most
// DefaultMaxConnections descriptors, while a new client is served and
// the engine in the same process still accepts a worker. The
// connections come from two helper processes of 10,000 each: this
// machine allows 20,000 descriptors to a process, and the clients' ends
// of the connections must not count against the server's.
func TestHTTPIdleConnectionsAreBounded(t *testing.T) {
	const helpers, each = 2, 10_000
	eng, err := engine.Start(t.Context(), "127.0.0.1:0", engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close() //nolint:errcheck // test teardown
	endpoint := startHTTP(t, mcp.NewServer(&mcp.Implementation{Name: "test", Version: "1"}, nil), HTTPOptions{})
	baseline := openFiles(t)
	addr := strings.TrimSuffix(strings.TrimPrefix(endpoint, "http://"), "/mcp")
	for h := range helpers {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s %d", holdConnsEnv, addr, each))
		cmd.Stderr = os.Stderr
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			stdin.Close()
			cmd.Wait() //nolint:errcheck // it exits when its input closes
		})
		line, err := bufio.NewReader(stdout).ReadString('\n')
		if want := fmt.Sprintf("held %d\n", each); line != want {
			t.Fatalf("helper %d: %q, %v; want %q", h, line, err, want)
		}
	}
	open := openFiles(t)
	t.Logf("%d connections held by the helpers; this process holds %d descriptors (%d before)", helpers*each, open, baseline)
	if open > baseline+DefaultMaxConnections+16 {
		t.Errorf("%d descriptors open with %d idle connections (%d before); want at most %d more", open, helpers*each, baseline, DefaultMaxConnections)
	}
	ctx, cancel := context.WithTimeout(t.Context(), waitTimeout)
	defer cancel()
	res, err := http.DefaultClient.Do(newMCPRequest(t, endpoint, initializeBody).WithContext(ctx))
	if err != nil {
		t.Fatalf("a new client after %d idle connections: %v", helpers*each, err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Errorf("a new client's initialize: %d, want 200", res.StatusCode)
	}
	client := iii.New(iii.Options{URL: eng.URL(), Name: "late-worker"})
	defer client.Close() //nolint:errcheck // test teardown
	client.Start()
	if err := client.WaitFirstAttempt(ctx); err != nil {
		t.Errorf("the engine beside the server after %d idle connections: %v; want a worker connected", helpers*each, err)
	}
}

// A request whose body does not arrive within httpBodyTimeout has its
// connection closed (a slow body once held it forever; issue 27), while
// a response streamed for longer than that after its body came, a slow
// tool's, is not cut.
func TestHTTPSlowBodyIsCut(t *testing.T) {
	defer func(d time.Duration) { httpBodyTimeout = d }(httpBodyTimeout)
	httpBodyTimeout = 200 * time.Millisecond
	server := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "slow"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		select { // outlives the body's deadline: the response must not be cut
		case <-time.After(3 * httpBodyTimeout):
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil, nil
	})
	endpoint := startHTTP(t, server, HTTPOptions{})
	addr := strings.TrimSuffix(strings.TrimPrefix(endpoint, "http://"), "/mcp")

	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n{\"jsonrpc\"", addr)
	c.SetReadDeadline(time.Now().Add(waitTimeout)) //nolint:errcheck // a net.Conn's deadline
	answer, err := io.ReadAll(c)
	if err != nil {
		t.Fatalf("a body that never came held its connection open: %v (got %q)", err, answer)
	}
	t.Logf("a body that never came: %q, then the connection closed", strings.SplitN(string(answer), "\r\n", 2)[0])

	ctx, cancel := context.WithTimeout(t.Context(), waitTimeout)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: endpoint, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close() //nolint:errcheck // test teardown
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "slow", Arguments: map[string]any{}})
	if err != nil || res.IsError || len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != "done" {
		t.Errorf("a tool answering after the body's deadline: %v, %+v; want done", err, res)
	}
}

// At the bound, a new connection pushes out the one idle the longest; when
// every connection is in a request, the new one is closed at once, and
// those in a request go on.
func TestHTTPConnectionsAtTheBound(t *testing.T) {
	endpoint := startHTTP(t, mcp.NewServer(&mcp.Implementation{Name: "test", Version: "1"}, nil), HTTPOptions{MaxConnections: 2})
	addr := strings.TrimSuffix(strings.TrimPrefix(endpoint, "http://"), "/mcp")
	dial := func() (net.Conn, *bufio.Reader) {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		c.SetDeadline(time.Now().Add(waitTimeout)) //nolint:errcheck // a net.Conn's deadline
		return c, bufio.NewReader(c)
	}
	// Two requests in progress: the server asks for their bodies, so it
	// has read their headers.
	busy := make([]net.Conn, 2)
	readers := make([]*bufio.Reader, 2)
	for i := range busy {
		busy[i], readers[i] = dial()
		fmt.Fprintf(busy[i], "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n", addr)
		if line, err := readers[i].ReadString('\n'); err != nil || !strings.Contains(line, "100 Continue") {
			t.Fatalf("request %d: %q, %v; want 100 Continue", i, line, err)
		}
		readers[i].ReadString('\n') //nolint:errcheck // the blank line after 100 Continue
	}
	third, thirdReader := dial()
	if b, err := io.ReadAll(thirdReader); len(b) != 0 || (err != nil && !errors.Is(err, syscall.ECONNRESET)) {
		t.Fatalf("a third connection while two are in a request: read %q, %v; want it closed at once", b, err)
	}
	third.Close()
	// The first request ends, and its connection idles.
	fmt.Fprint(busy[0], "{}")
	res, err := http.ReadResponse(readers[0], nil)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, res.Body) //nolint:errcheck // read to idle the connection
	res.Body.Close()
	// A new client is served, pushing the idle connection out. The server
	// marks the connection idle just after it has answered: until then a
	// new one is still closed at once, and the client tries again.
	for {
		c, r := dial()
		fmt.Fprintf(c, "GET /nothing HTTP/1.1\r\nHost: %s\r\n\r\n", addr)
		res, err := http.ReadResponse(r, nil)
		if err == nil {
			res.Body.Close()
			if res.StatusCode != http.StatusNotFound {
				t.Errorf("the new client: %d, want 404", res.StatusCode)
			}
			break
		}
		if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, syscall.ECONNRESET) {
			t.Fatalf("the new client: %v; want an answer", err)
		}
	}
	if b, err := io.ReadAll(readers[0]); len(b) != 0 || (err != nil && !errors.Is(err, syscall.ECONNRESET)) {
		t.Errorf("the idle connection: read %q, %v; want it closed", b, err)
	}
	// The second request, still in progress, goes on.
	fmt.Fprint(busy[1], "{}")
	if res, err := http.ReadResponse(readers[1], nil); err != nil {
		t.Errorf("the request in progress after the bound was reached: %v; want an answer", err)
	} else {
		res.Body.Close()
	}
}
