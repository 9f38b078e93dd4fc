package engine

import (
	"net/http"

	"go.uber.org/zap"
)

// serveOtel accepts the SDKs' telemetry socket (GET /otel) and discards
// every frame. It never registers a worker; WebSocket pings are answered
// by gorilla's default handler while the read is pending.
func (s *Engine) serveOtel(w http.ResponseWriter, r *http.Request) {
	if !s.enter() {
		http.Error(w, "engine: engine is stopping", http.StatusServiceUnavailable)
		return
	}
	defer s.handlers.Done()
	sk := s.upgrade(w, r, nil)
	if sk == nil {
		return
	}
	defer s.release(sk)
	s.log.Debug("telemetry socket opened", zap.String("remote_addr", r.RemoteAddr))
	for {
		if _, _, err := sk.ws.ReadMessage(); err != nil {
			s.log.Debug("telemetry socket ended", zap.Error(err))
			return
		}
	}
}
