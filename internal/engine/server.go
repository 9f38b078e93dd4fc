// Package engine is a faithful local iii engine for tests and first use
// (`skills dev`, `skills engine`): Start, URL, Close, DropConnections,
// Restart, Pause and Resume; package iiitest wraps it for tests.
//
// It speaks the 0.22.1 worker protocol (tolerating 0.23 fields), or with
// Options.Namespaces engine 0.23's namespace rules, as summarised in
// docs/protocol.md (see docs/engine.md): invocation routing by id, void and
// enqueue actions, _caller_worker_id injection, function ownership, trigger
// type providers with parking and replay, disconnect cleanup, reattach, the
// in-process state::* and engine::* functions with their quirks, JSON and
// WebSocket keepalive, and an /otel socket that discards telemetry. It never
// sends anything the real engine would not (no registration acks, no pings).
package engine

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/gorilla/websocket"
	"go.uber.org/zap"

	"github.com/iii-hq/skills-go/internal/iii/wsbatch"
)

// Options configures an Engine.
type Options struct {
	// Logger receives connect, disconnect and registration logs (info) and
	// dropped frames (debug). Nil discards everything.
	Logger *zap.Logger
	// MaxFrameBytes caps one inbound WebSocket message; a bigger one ends the
	// connection. Zero means 64 MiB, the engine's library default.
	MaxFrameBytes int64
	// FunctionsPollInterval is how often the engine compares the set of
	// function ids to fire engine::functions-available. Zero means 5 s.
	FunctionsPollInterval time.Duration
	// StateWindow, when set, gives each state binding a delivery queue of
	// its own, with up to StateWindow of its events in flight at once
	// (state_binding_queue.go, docs/decisions.md D72): iii calls a
	// write's bindings from a task of its own per write, so a binding's
	// events overlap without bound; skills engine and skills dev run 64.
	// Zero, the default, is one queue for every binding, each call
	// awaited before the next starts: a binding's event is held up by
	// every binding before it (tests use that to order what a worker
	// sees).
	StateWindow int
	// WithoutStateTrigger leaves out the state trigger type, as an engine
	// whose state worker does not provide it: bindings of it are parked
	// and never fire. For testing workers' fallbacks.
	WithoutStateTrigger bool
	// Namespaces selects engine 0.23's namespace rules: a connection's
	// namespace comes from its engine::workers::register call, which its
	// registrations wait for; functions, worker names and trigger types
	// are keyed by namespace; calls and bindings name the namespace they
	// resolve in (docs/engine.md, "Namespaces (0.23 mode)"). False, the
	// default, is the 0.22.1 engine, which ignores every namespace field
	// as 0.22.1 ignores unknown fields. With it, StartStateIn gives a
	// namespace a state worker of its own.
	Namespaces bool
	// NamespaceGrace is how long, with Namespaces, a connection's
	// registrations wait for its engine::workers::register call before
	// they are applied in the default namespace (the engine's
	// III_NAMESPACE_GRACE_MS). Zero means 5 s.
	NamespaceGrace time.Duration
	// StateWorkerLate starts the engine without its state worker, as iii
	// 0.24 runs state as a separate worker that may register after
	// others: no state::* function and no state trigger type (bindings of
	// it are parked) until StartState installs them.
	StateWorkerLate bool
	// StateListEntries adds state::list_entries, the paged listing of iii
	// 0.24's state worker (docs/decisions.md D55).
	StateListEntries bool
	// DataDir, when set, keeps the default namespace's state in
	// DataDir/state.log (D67): loaded at start, and every write
	// acknowledged only once it is fsynced there; a write that cannot be
	// persisted is refused and changes nothing. A DataDir/state.json (D46)
	// is loaded once and renamed state.json.migrated. A file that does not
	// decode stops Start with its path. Other namespaces' state
	// (StartStateIn) stays in memory.
	DataDir string
	// StateURL, when set, keeps the default namespace's state in the
	// Redis server it names, redis://host:port[/db] (D71), laid out as
	// iii's Redis state adapter lays it out: a hash "state:<scope>" per
	// scope. Engines on one Redis share the data; each fires the state
	// trigger only for its own writes. A write is acknowledged once Redis
	// answered it; while Redis cannot be reached state::* calls fail,
	// naming the URL and the cause, and succeed again once it is back. A
	// value that is not such a URL stops Start (StateURLError); Redis
	// not answering does not. Exclusive with DataDir. Other namespaces'
	// state stays in memory.
	StateURL string
	// stateLogTesting, for tests, opens DataDir's state log and sets
	// when it is compacted (nil: as deployed).
	stateLogTesting *stateLogTesting
	// PubSub gives the engine iii's pubsub worker (pubsub.go,
	// docs/decisions.md D75): the publish function and the subscribe
	// trigger type. "local" delivers to this engine's bindings; a Redis
	// URL, redis://host:port[/db] as StateURL takes it, publishes through
	// that server, so engines sharing it hear each other's publishes.
	// "", the default, is an engine without a pubsub worker. A value
	// that is neither stops Start (PubSubError); Redis not answering
	// does not (a publish then fails naming the server).
	PubSub string
	// Configuration gives the engine the configuration worker's
	// configuration::* functions and the configuration trigger type, in
	// memory (docs/engine.md#the-configuration-worker). Off by default:
	// an engine without a configuration worker, as 0.22.1.
	Configuration bool
}

const (
	defaultMaxFrameBytes = 64 << 20
	// writeWait bounds one frame write to a worker.
	writeWait = 10 * time.Second
	// handshakeTimeout bounds the HTTP upgrade request, as the engine's
	// handshake_timeout_ms default does.
	handshakeTimeout = 10 * time.Second
	// reattachEvictTimeout bounds the wait for an evicted connection's own
	// cleanup before the reattaching one runs it (REATTACH_EVICT_TIMEOUT).
	reattachEvictTimeout = 5 * time.Second
	// relistenTimeout bounds Restart's attempts to bind the old port again.
	relistenTimeout = 5 * time.Second
)

// Engine is a running local engine. Its zero value is not usable; create
// one with Start.
type Engine struct {
	opts      Options
	log       *zap.Logger
	addr      string // host:port, fixed for the server's life
	startedAt time.Time
	upgrader  websocket.Upgrader
	state     *stateStore
	lock      *dataLock // the data directory's, nil without DataDir; released by Close
	// stateEvents queues writes for the state trigger type's bindings.
	stateEvents *eventQueue[stateEvent]
	// bindingQueues holds each state binding's events (state_binding_queue.go).
	bindingQueues bindingQueues
	// configs and configEvents are the configuration worker's, nil
	// without Options.Configuration.
	configs      *configurations
	configEvents *eventQueue[configurationEvent]
	// pubsubRedis is the pubsub worker's Redis adapter, nil without one
	// (pubsub_redis.go).
	pubsubRedis *redisPubSub

	admin sync.Mutex // serialises Close, Pause, Resume and DropConnections

	life      sync.Mutex // guards the fields below
	accepting bool
	closed    bool
	paused    bool // between Pause and Resume
	httpSrv   *http.Server
	sockets   map[*socket]struct{}
	handlers  sync.WaitGroup // Serve goroutine and request handlers
	httpConns sync.WaitGroup // net/http connections not yet closed or hijacked

	quit chan struct{}  // closed by Close; stops background work
	bg   sync.WaitGroup // background goroutines

	registry // guarded by registry.mu
}

// socket is one upgraded WebSocket, worker or telemetry.
type socket struct {
	ws     *websocket.Conn
	worker *conn         // nil for /otel
	exited chan struct{} // closed when its handler has returned
}

// Start starts an engine listening on addr, for example "127.0.0.1:49134"
// for a standalone run or "127.0.0.1:0" for a free port. ctx bounds only
// the start itself; the engine runs until Close.
func Start(ctx context.Context, addr string, opts Options) (*Engine, error) {
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	if opts.MaxFrameBytes <= 0 {
		opts.MaxFrameBytes = defaultMaxFrameBytes
	}
	if opts.FunctionsPollInterval <= 0 {
		opts.FunctionsPollInterval = defaultFunctionsPollInterval
	}
	if opts.NamespaceGrace <= 0 {
		opts.NamespaceGrace = defaultNamespaceGrace
	}
	store := newStateStore()
	quit := make(chan struct{})
	var lock *dataLock // held until Close (D66)
	if opts.StateURL != "" {
		if opts.DataDir != "" {
			return nil, fmt.Errorf("engine: state in Redis (%s) and in a data directory (%s) at once: choose one", redactURL(opts.StateURL), opts.DataDir)
		}
		r, err := openRedisState(opts.StateURL)
		if err != nil {
			return nil, err
		}
		if err := r.ping(ctx); err != nil {
			opts.Logger.Warn("state is in Redis, which does not answer yet; state calls fail until it does", zap.Error(err))
		}
		store.remote = r
	}
	if opts.DataDir != "" {
		if err := os.MkdirAll(opts.DataDir, 0o700); err != nil {
			return nil, fmt.Errorf("engine: state directory: %w", err)
		}
		var err error
		if lock, err = lockDataDir(opts.DataDir); err != nil {
			return nil, err
		}
		l, err := openStateLog(opts.DataDir, store, opts.Logger, quit, opts.stateLogTesting)
		if err != nil {
			lock.release()
			return nil, &StateFileError{Err: err}
		}
		store.durable = l
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		if store.durable != nil {
			_ = store.durable.f.Close()
		}
		if store.remote != nil {
			store.remote.close()
		}
		lock.release()
		return nil, fmt.Errorf("engine: listen on %s: %w", addr, err)
	}
	s := &Engine{
		opts:      opts,
		log:       opts.Logger,
		addr:      ln.Addr().String(),
		startedAt: time.Now(),
		upgrader: websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true },
			WriteBufferSize: wsbatch.FrameBufferSize, WriteBufferPool: wsbatch.BufferPool},
		state: store,
		lock:  lock,

		stateEvents: newEventQueue[stateEvent](),
		sockets:     map[*socket]struct{}{},
		quit:        quit,
	}
	s.registry.withoutStateTrigger = opts.WithoutStateTrigger
	s.registry.namespaces = opts.Namespaces
	s.registry.stateListEntries = opts.StateListEntries
	s.registry.stateAbsent = opts.StateWorkerLate
	s.startConfiguration()
	if err := s.startPubSub(); err != nil {
		_ = ln.Close()
		if store.durable != nil {
			_ = store.durable.f.Close()
		}
		if store.remote != nil {
			store.remote.close()
		}
		lock.release()
		return nil, err
	}
	s.registry.init()
	s.startPubSubRedis()
	s.bg.Add(2)
	go s.watchFunctions(s.functionIDsSignature())
	go s.deliverStateEvents()
	if store.durable != nil {
		s.bg.Add(1)
		store.durable.start(s.bg.Done)
	}
	s.serve(ln)
	s.log.Info("local engine listening", zap.String("url", s.URL()))
	return s, nil
}

// URL returns the worker endpoint, "ws://127.0.0.1:<port>".
func (s *Engine) URL() string {
	host, port, err := net.SplitHostPort(s.addr)
	if err != nil {
		return "ws://" + s.addr
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return "ws://" + net.JoinHostPort(host, port)
}

// Close stops listening, drops every connection (each gets the engine's
// full disconnect cleanup) and waits for every goroutine the server
// started. Further calls do nothing.
func (s *Engine) Close() {
	s.admin.Lock()
	defer s.admin.Unlock()
	s.life.Lock()
	if s.closed {
		s.life.Unlock()
		return
	}
	s.closed = true
	s.life.Unlock()
	s.stopServing()
	close(s.quit)
	if s.pubsubRedis != nil {
		s.pubsubRedis.close() // ends the subscriber's read
	}
	s.bg.Wait()
	s.lock.release() // after the last state write
	if s.state.remote != nil {
		s.state.remote.close()
	}
	s.log.Info("local engine closed", zap.String("url", s.URL()))
}

// DropConnections drops every connection abruptly (no close frame),
// keeps listening, and returns once each dropped worker's cleanup is done,
// so its functions, bindings and calls are already gone.
func (s *Engine) DropConnections() {
	s.admin.Lock()
	defer s.admin.Unlock()
	s.life.Lock()
	socks := make([]*socket, 0, len(s.sockets))
	for sk := range s.sockets {
		socks = append(socks, sk)
	}
	s.life.Unlock()
	for _, sk := range socks {
		_ = sk.ws.Close()
	}
	for _, sk := range socks {
		<-sk.exited
	}
}

// Restart drops all connections and stops listening, then listens again on
// the same port, as an engine restart would: Pause, then Resume.
func (s *Engine) Restart() error {
	if err := s.Pause(); err != nil {
		return err
	}
	return s.Resume()
}

// Pause takes the engine down as a crash would, without ending it: it
// stops listening and drops every connection, and everything workers
// registered is gone (built-ins a worker had replaced are back). State
// (state::*) is kept, and SetState still writes it. Resume brings the
// engine back on the same port.
func (s *Engine) Pause() error {
	s.admin.Lock()
	defer s.admin.Unlock()
	s.life.Lock()
	closed, paused := s.closed, s.paused
	s.paused = true
	s.life.Unlock()
	switch {
	case closed:
		return errors.New("engine: pause of a closed server")
	case paused:
		return errors.New("engine: already paused")
	}
	s.stopServing()
	s.mu.Lock()
	s.installBuiltinsLocked()
	s.mu.Unlock()
	s.log.Info("local engine paused", zap.String("url", s.URL()))
	return nil
}

// Resume listens again, on the port the engine had, after Pause.
func (s *Engine) Resume() error {
	s.admin.Lock()
	defer s.admin.Unlock()
	s.life.Lock()
	closed, paused := s.closed, s.paused
	s.life.Unlock()
	switch {
	case closed:
		return errors.New("engine: resume of a closed server")
	case !paused:
		return errors.New("engine: resume of a server that is not paused")
	}
	ln, err := listenAgain(s.addr)
	if err != nil {
		return err
	}
	s.life.Lock()
	s.paused = false
	s.life.Unlock()
	s.serve(ln)
	s.log.Info("local engine resumed", zap.String("url", s.URL()))
	return nil
}

// listenAgain binds addr, retrying while the old socket is still releasing
// the port.
func listenAgain(addr string) (net.Listener, error) {
	deadline := time.Now().Add(relistenTimeout)
	for {
		ln, err := net.Listen("tcp", addr)
		if err == nil {
			return ln, nil
		}
		if !errors.Is(err, syscall.EADDRINUSE) || time.Now().After(deadline) {
			return nil, fmt.Errorf("engine: listen again on %s: %w", addr, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// serve starts accepting on ln.
func (s *Engine) serve(ln net.Listener) {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.serveWorker)
	mux.HandleFunc("GET /otel", s.serveOtel)
	srv := &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: handshakeTimeout,
		ConnState:         s.trackHTTPConn,
		ErrorLog:          zap.NewStdLog(s.log),
	}
	srv.SetKeepAlivesEnabled(false)
	s.life.Lock()
	s.httpSrv = srv
	s.accepting = true
	s.handlers.Add(1)
	s.life.Unlock()
	go func() {
		defer s.handlers.Done()
		_ = srv.Serve(ln)
	}()
}

// stopServing closes the listener and every socket, then waits until every
// handler has returned (each worker's cleanup included).
func (s *Engine) stopServing() {
	s.life.Lock()
	s.accepting = false
	srv := s.httpSrv
	s.httpSrv = nil
	socks := make([]*socket, 0, len(s.sockets))
	for sk := range s.sockets {
		socks = append(socks, sk)
	}
	s.life.Unlock()
	if srv != nil {
		_ = srv.Close()
	}
	for _, sk := range socks {
		_ = sk.ws.Close()
	}
	s.handlers.Wait()
	s.httpConns.Wait()
}

// trackHTTPConn counts net/http connections so that stopping waits for
// them, and refuses connections that arrive while stopping.
func (s *Engine) trackHTTPConn(c net.Conn, state http.ConnState) {
	switch state {
	case http.StateNew:
		s.httpConns.Add(1)
		s.life.Lock()
		accepting := s.accepting
		s.life.Unlock()
		if !accepting {
			_ = c.Close()
		}
	case http.StateHijacked, http.StateClosed:
		s.httpConns.Done()
	}
}

// enter registers a request handler; false means the server is stopping.
func (s *Engine) enter() bool {
	s.life.Lock()
	defer s.life.Unlock()
	if !s.accepting {
		return false
	}
	s.handlers.Add(1)
	return true
}

// upgrade turns the request into a tracked WebSocket, or returns nil. The
// socket under it is a wsbatch.Conn, for the writer to batch frames on
// (docs/decisions.md D52).
func (s *Engine) upgrade(w http.ResponseWriter, r *http.Request, worker func(*websocket.Conn, *wsbatch.Conn) *conn) *socket {
	bw := wsbatch.NewResponseWriter(w)
	ws, err := s.upgrader.Upgrade(bw, r, nil)
	if err != nil {
		s.log.Debug("websocket upgrade failed", zap.String("path", r.URL.Path), zap.Error(err))
		return nil
	}
	ws.SetReadLimit(s.opts.MaxFrameBytes)
	sk := &socket{ws: ws, exited: make(chan struct{})}
	if worker != nil {
		sk.worker = worker(ws, bw.Conn())
	}
	s.life.Lock()
	defer s.life.Unlock()
	if !s.accepting {
		_ = ws.Close()
		return nil
	}
	s.sockets[sk] = struct{}{}
	return sk
}

// release forgets a socket whose handler is about to return.
func (s *Engine) release(sk *socket) {
	_ = sk.ws.Close()
	s.life.Lock()
	delete(s.sockets, sk)
	s.life.Unlock()
	close(sk.exited)
}

// serveWorker runs one worker connection: handshake, then its read loop in
// this goroutine and its writer in another, then the disconnect cleanup.
func (s *Engine) serveWorker(w http.ResponseWriter, r *http.Request) {
	if !s.enter() {
		http.Error(w, "engine: engine is stopping", http.StatusServiceUnavailable)
		return
	}
	defer s.handlers.Done()
	sk := s.upgrade(w, r, func(ws *websocket.Conn, nc *wsbatch.Conn) *conn { return newConn(s, ws, nc, r.RemoteAddr) })
	if sk == nil {
		return
	}
	defer s.release(sk)
	c := sk.worker
	go c.writeLoop()
	if s.opts.Namespaces {
		s.beginNamespace(c)
	}
	s.connect(c)
	c.readLoop()
	s.cleanup(c)
	<-c.writerDone
	if c.graceDone != nil {
		<-c.graceDone
	}
}
