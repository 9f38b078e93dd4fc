// Package iii is a client of the iii engine's worker protocol: it keeps one
// WebSocket connection to the engine alive, registers the worker's
// functions and trigger types on every connection, serves incoming
// invocations and makes outbound calls.
package iii

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/iii-hq/skills-go/internal/iii/wire"
)

// Defaults applied by New to zero Options fields. The keepalive values
// match the official SDKs: a control ping every 20 s, a connection dropped
// after 60 s without any inbound frame, 10 s to open a connection.
const (
	DefaultCallTimeout      = 30 * time.Second
	DefaultMaxFrameBytes    = 64 << 20
	DefaultMaxResultBytes   = 63 << 20
	DefaultReconnectInitial = 100 * time.Millisecond // docs/decisions.md D28: back ≤ 2 s after the engine is
	DefaultReconnectMax     = 1500 * time.Millisecond
	DefaultReconnectJitter  = 0.25
	DefaultPingInterval     = 20 * time.Second
	DefaultIdleTimeout      = 60 * time.Second
	DefaultHandshakeTimeout = 10 * time.Second
	DefaultWriteTimeout     = 10 * time.Second
)

// Options configures a Client. Zero values take the defaults above.
type Options struct {
	URL         string // engine URL; "" → ResolveURL("")
	Name        string // worker name; "" → $III_WORKER_NAME, else hostname:pid
	Description string // one line, reported to the engine; omitted when empty
	Version     string // reported in engine::workers::register
	Logger      *zap.Logger
	CallTimeout time.Duration // sync calls without their own timeout or ctx deadline

	// Namespace is the engine namespace the worker registers in (engine
	// 0.23): "" or "default" is the engine's default, and then no frame
	// names a namespace unless a call or binding does (namespace.go has
	// the rules). It is not read from $III_NAMESPACE: the caller decides.
	// New panics on a blank one ("  ").
	Namespace string

	// MaxFrameBytes caps one inbound message. A larger message makes the
	// WebSocket read fail; the connection cannot be resynchronised after
	// that, so the client logs it and reconnects.
	MaxFrameBytes int64

	// MaxResultBytes caps the encoded result of one handler. A bigger
	// result is answered with an unavailable error that says so, instead
	// of a frame the engine would refuse by closing the connection
	// (docs/decisions.md D26). Zero means 63 MiB: the engine's 64 MiB
	// frame less room for the envelope.
	MaxResultBytes int
	// OversizeHint, when set, says how to ask for less of a function's
	// result; its text replaces "ask for less" in the error.
	OversizeHint func(functionID string) string
	// MaxBytesInFlight bounds the bytes the handlers hold with HoldBytes
	// at once, across invocations, each until its result has been written
	// (docs/decisions.md D64); 0 is no bound.
	MaxBytesInFlight int64
	// bytesWait replaces BytesInFlightWait (tests).
	bytesWait time.Duration

	ReconnectInitial time.Duration // first reconnect delay; doubles per failed attempt
	ReconnectMax     time.Duration // cap of the reconnect delay
	ReconnectJitter  float64       // ± fraction of the delay; negative disables jitter
	PingInterval     time.Duration // WebSocket control ping period
	IdleTimeout      time.Duration // reconnect after this long without any inbound frame
	HandshakeTimeout time.Duration // dial + upgrade, and the wait for workerregistered
	WriteTimeout     time.Duration // deadline of each socket write

	// netDial, when set, opens the connection in place of a TCP dial:
	// tests put an in-memory engine behind it to run the client on a
	// fake clock (docs/testing.md).
	netDial func(ctx context.Context, network, addr string) (net.Conn, error)
}

func (o Options) withDefaults() Options {
	if o.URL == "" {
		o.URL = ResolveURL("")
	}
	if o.Name == "" {
		o.Name = defaultName()
	}
	if o.Logger == nil {
		o.Logger = zap.NewNop()
	}
	setDefault(&o.CallTimeout, DefaultCallTimeout)
	setDefault(&o.MaxFrameBytes, DefaultMaxFrameBytes)
	setDefault(&o.MaxResultBytes, DefaultMaxResultBytes)
	setDefault(&o.ReconnectInitial, DefaultReconnectInitial)
	setDefault(&o.ReconnectMax, DefaultReconnectMax)
	setDefault(&o.ReconnectJitter, DefaultReconnectJitter)
	setDefault(&o.PingInterval, DefaultPingInterval)
	setDefault(&o.IdleTimeout, DefaultIdleTimeout)
	setDefault(&o.HandshakeTimeout, DefaultHandshakeTimeout)
	setDefault(&o.WriteTimeout, DefaultWriteTimeout)
	setDefault(&o.bytesWait, BytesInFlightWait)
	return o
}

func setDefault[T time.Duration | int | int64 | float64](v *T, def T) {
	if *v == 0 {
		*v = def
	}
}

// Client is a worker's connection to the engine. Registrations are kept in
// memory and replayed on every connection; calls made while disconnected
// fail fast with ErrNotConnected. All methods are safe for concurrent use.
type Client struct {
	opts      Options
	log       *zap.Logger
	namespace string // Options.Namespace; "" for the default namespace
	routesMu  sync.RWMutex
	routes    map[string]string        // RouteNamespace: function-id prefix → namespace
	holds     map[string]chan struct{} // HoldNamespace: closed by RouteNamespace
	metadata  []byte                   // the engine::workers::register frame

	ctx         context.Context // client lifetime: handlers and hooks; ended by Close
	cancel      context.CancelFunc
	superCtx    context.Context // connections; ended by Close or a fatal rejection
	superCancel context.CancelFunc
	supervisor  sync.WaitGroup // the supervisor goroutine (which owns each connection's goroutines)
	handlers    sync.WaitGroup // handler goroutines
	streaming   atomic.Int32   // CallEach calls waiting: inbound messages are looked into (receive)
	maxResult   atomic.Int64   // Options.MaxResultBytes, or SetMaxResultBytes's
	bytes       *byteBudget    // Options.MaxBytesInFlight; nil: no bound
	memory      sync.WaitGroup // the goroutine that returns memory after a burst (inflight.go)
	replicas    sync.WaitGroup // keepRegistrations, after FollowReplicas (replicas.go)

	mu           sync.Mutex
	started      bool
	closed       bool
	shuttingDown bool
	fatal        error
	conn         *conn  // the live connection, nil while disconnected
	ready        bool   // conn received workerregistered
	lastErr      error  // why the last connection attempt or connection ended
	stage        string // what the connection attempt under way waits for (setStage)
	workerID     string
	prevID       string // from the last workerregistered, for reattach
	prevToken    string
	changed      chan struct{} // closed and replaced on every state change
	functions    map[string]functionEntry
	triggers     map[string]triggerEntry
	providers    map[string]*Provider
	pending      map[string]*call
	inflight     int           // running handlers
	drained      chan struct{} // closed when inflight reaches 0 during Shutdown
	onDisconnect []func()      // run when a connection ends, before the next is dialled
	replicaFn    string        // FollowReplicas's function; "" when not following replicas
	replicaWake  chan struct{} // wakes keepRegistrations
	onTakeOver   func()        // OnTakeOver's
	onEngine     []func()      // OnEngineChange's
}

// New returns a Client; it does not connect until Start.
func New(opts Options) *Client {
	opts = opts.withDefaults()
	c := &Client{
		opts:      opts,
		log:       opts.Logger,
		namespace: workerNamespace(opts.Namespace),
		changed:   make(chan struct{}),
		functions: make(map[string]functionEntry),
		triggers:  make(map[string]triggerEntry),
		providers: make(map[string]*Provider),
		pending:   make(map[string]*call),
	}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	c.superCtx, c.superCancel = context.WithCancel(c.ctx)
	c.metadata = c.metadataFrame()
	c.maxResult.Store(int64(opts.MaxResultBytes))
	c.bytes = newByteBudget(opts.MaxBytesInFlight)
	return c
}

// Start begins connecting in the background and keeps reconnecting until
// Close, Shutdown or a fatal rejection. Calling it again does nothing.
func (c *Client) Start() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.started || c.closed {
		return
	}
	c.started = true
	c.supervisor.Add(1)
	go c.supervise()
	if c.bytes != nil {
		c.memory.Add(1)
		go c.returnMemory()
	}
	if c.replicaFn != "" {
		c.replicas.Add(1)
		go c.keepRegistrations()
	}
}

// WaitReady blocks until the current connection has completed its
// handshake (the registrations went out when it opened and the engine
// greeted it with workerregistered), ctx is done (the error then names
// why the last connection attempt failed, if one did), the engine
// rejected the worker (the *RegistrationRejectedError is returned) or the
// client is closed.
func (c *Client) WaitReady(ctx context.Context) error {
	_, err := c.waitUntil(ctx, func() (bool, error) { return c.ready, nil })
	if err != nil && ctx.Err() != nil && !errors.Is(err, ErrClosed) {
		c.mu.Lock()
		lastErr := c.lastErr
		c.mu.Unlock()
		if lastErr != nil {
			return fmt.Errorf("wait ready: %w (last attempt: %v)", ctx.Err(), lastErr)
		}
		return fmt.Errorf("wait ready: %w", ctx.Err())
	}
	return err
}

// OnDisconnect adds f to what runs each time a connection ends, before
// the next one is dialled: whatever was derived from the engine over that
// connection (a catalog loaded on it) can stop vouching for itself before
// any call on a new connection is served. f must not block or call the
// client.
func (c *Client) OnDisconnect(f func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.onDisconnect = append(c.onDisconnect, f)
}

// WaitConnection waits for a ready connection other than the one whose
// worker id is previous ("" accepts any) and returns its worker id. A
// component that keeps state derived from the engine (a catalog reloaded
// on every connection) loops on it: each return is a new connection whose
// handshake has been sent.
func (c *Client) WaitConnection(ctx context.Context, previous string) (string, error) {
	return c.waitUntil(ctx, func() (bool, error) { return c.ready && c.workerID != previous, nil })
}

// Connection returns the worker id of the current connection once it is
// ready, or "" while there is none.
func (c *Client) Connection() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.ready {
		return ""
	}
	return c.workerID
}

// WaitFirstAttempt is WaitReady for one-shot tools such as `skills call`:
// it also returns when a connection attempt has failed, with that
// attempt's error (an unreachable engine or a URL that cannot work), so
// the caller can report it at once instead of waiting out ctx while the
// client retries. When ctx ends first, the error wraps ctx's and says
// which step of the attempt was still waiting (the TCP connection, the
// WebSocket upgrade or the engine's greeting); Close then abandons that
// step at once.
func (c *Client) WaitFirstAttempt(ctx context.Context) error {
	_, err := c.waitUntil(ctx, func() (bool, error) { return c.ready, c.lastErr })
	if err != nil && ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		c.mu.Lock()
		stage := c.stage
		c.mu.Unlock()
		if stage != "" {
			return &PendingAttemptError{Stage: stage, Err: err}
		}
	}
	return err
}

// PendingAttemptError is WaitFirstAttempt's error when its ctx ended
// before the connection attempt did.
type PendingAttemptError struct {
	// Stage says which step was still waiting, as a clause: "the TCP
	// connection to 127.0.0.1:49134 opened, but the WebSocket upgrade got
	// no answer (…)".
	Stage string
	// Err is ctx's error.
	Err error
}

func (e *PendingAttemptError) Error() string { return e.Err.Error() + ": " + e.Stage }

// Unwrap returns ctx's error.
func (e *PendingAttemptError) Unwrap() error { return e.Err }

// waitUntil re-evaluates cond, under c.mu, at every state change until it
// holds (returning the current worker id) or reports an error, the client
// stops for good (its fatal error or ErrClosed), or ctx ends.
func (c *Client) waitUntil(ctx context.Context, cond func() (bool, error)) (string, error) {
	for {
		c.mu.Lock()
		fatal, closed, changed, id := c.fatal, c.closed, c.changed, c.workerID
		done, err := cond()
		c.mu.Unlock()
		switch {
		case fatal != nil:
			return "", fatal
		case closed:
			return "", ErrClosed
		case done:
			return id, nil
		case err != nil:
			return "", err
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
}

// Err returns the fatal error that stopped the client, if any: the engine
// rejected the worker with a code other than FUNCTION_NAMESPACE_CONFLICT.
func (c *Client) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.fatal
}

// Done is closed when the client has stopped connecting for good: after a
// fatal rejection (see Err) or Close. Shutdown and Close are still needed
// after a rejection to drain handlers and release resources.
func (c *Client) Done() <-chan struct{} { return c.superCtx.Done() }

// WorkerID returns the id the engine assigned to the current connection,
// or "" while disconnected. It changes on every reconnect.
func (c *Client) WorkerID() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.workerID
}

// Close stops the client: pending calls fail with ErrClosed, handler
// contexts are cancelled, queued frames are flushed and the socket closed.
// It returns once every goroutine the client started has ended, so
// handlers must honour their ctx. Close is idempotent.
func (c *Client) Close() error {
	c.mu.Lock()
	if !c.closed {
		c.closed = true
		c.failPendingLocked(nil, ErrClosed)
		c.notifyLocked()
	}
	c.mu.Unlock()
	c.cancel()
	c.supervisor.Wait()
	c.handlers.Wait()
	c.memory.Wait()
	c.replicas.Wait()
	return nil
}

// Shutdown is the graceful stop: it unregisters every function so the
// engine stops routing to this worker, answers invocations that still
// arrive with code unavailable, waits for in-flight handlers until ctx is
// done, then closes the client. It returns ctx's error if handlers were
// still running (they are then cancelled by Close).
func (c *Client) Shutdown(ctx context.Context) error {
	c.mu.Lock()
	if !c.shuttingDown && !c.closed {
		c.shuttingDown = true
		c.drained = make(chan struct{})
		if c.inflight == 0 {
			close(c.drained)
		}
		if c.conn != nil {
			for _, id := range slices.Sorted(maps.Keys(c.functions)) {
				c.sendLocked(wire.UnregisterFunction{ID: id})
			}
			if c.replicaFn != "" {
				// The engine fires worker_metadata_updated: the other
				// replicas register at once what this one no longer
				// serves (replicas.go).
				c.conn.send(c.metadata)
			}
		}
	}
	drained := c.drained
	c.mu.Unlock()

	var err error
	if drained != nil {
		select {
		case <-drained:
		case <-ctx.Done():
			err = fmt.Errorf("shutdown: handlers still running: %w", ctx.Err())
		}
	}
	c.Close()
	return err
}

// notifyLocked wakes every WaitReady.
func (c *Client) notifyLocked() {
	close(c.changed)
	c.changed = make(chan struct{})
}

// sendLocked queues a client-generated frame on the live connection. Such
// frames are built from validated data, so an encoding failure is a bug
// worth a log line, not an error for the caller.
func (c *Client) sendLocked(m wire.Message) {
	b, err := wire.Encode(m)
	if err != nil {
		c.log.Error("encode frame", zap.Error(err))
		return
	}
	if c.conn != nil {
		c.conn.send(b)
	}
}
