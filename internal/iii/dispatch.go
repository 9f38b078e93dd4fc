package iii

import (
	"go.uber.org/zap"

	"github.com/iii-hq/skills-go/internal/iii/wire"
)

// handle processes one inbound message on the read loop. Anything that
// does not decode is logged at debug and ignored, as the engine does with
// bad frames; the connection keeps serving.
func (c *Client) handle(cn *conn, data []byte) {
	msg, err := wire.Decode(data)
	if err != nil {
		c.log.Debug("ignored frame", zap.Error(err), zap.Int("bytes", len(data)))
		return
	}
	switch m := msg.(type) {
	case wire.WorkerRegistered:
		c.greeted(cn, m)
	case wire.InvocationResult:
		c.resolve(m)
	case wire.InvokeFunction:
		c.serveInvocation(cn, m)
	case wire.RegisterTrigger:
		c.subscribe(cn, m)
	case wire.UnregisterTrigger:
		c.unsubscribe(m)
	case wire.TriggerRegistrationResult:
		c.triggerRejected(m)
	case wire.Ping:
		cn.send(mustEncode(wire.Pong{}))
	case wire.Pong:
	case wire.RegistrationRejected:
		c.rejected(m)
	default:
		c.log.Debug("ignored frame", zap.String("type", msg.MessageType()), zap.String("reason", "not sent by engines"))
	}
}

// greeted stores the engine-assigned identity: the worker id, and the
// reattach token the next connection presents.
func (c *Client) greeted(cn *conn, m wire.WorkerRegistered) {
	cn.greet(m.WorkerID)
	c.mu.Lock()
	if c.conn == cn {
		c.workerID, c.prevID, c.prevToken = m.WorkerID, m.WorkerID, m.ReattachToken
		c.ready = true
		c.notifyLocked()
	}
	c.mu.Unlock()
	c.log.Info("connected to engine", zap.String("url", c.opts.URL), zap.String("worker_id", m.WorkerID))
}

// triggerRejected logs the engine's report that one of this worker's
// bindings was refused by its provider; success is never reported.
func (c *Client) triggerRejected(m wire.TriggerRegistrationResult) {
	if m.Error == nil {
		c.log.Debug("trigger registration accepted", zap.String("trigger_id", m.ID))
		return
	}
	c.log.Warn("trigger registration failed", zap.String("trigger_id", m.ID),
		zap.String("trigger_type", m.TriggerType), zap.String("function_id", m.FunctionID),
		zap.String("code", m.Error.Code), zap.String("message", m.Error.Message))
}

// rejected handles engine 0.23's registrationrejected. A function id
// conflict refuses one function and the connection stays useful; anything
// else (a worker name held by another live worker, or a code this client
// does not know) is fatal: pending calls fail, reconnecting stops and the
// error is reported through WaitReady and Err.
func (c *Client) rejected(m wire.RegistrationRejected) {
	err := &RegistrationRejectedError{Code: m.Code, Namespace: m.Namespace, WorkerName: m.WorkerName,
		FunctionID: m.FunctionID, OwnerWorkerID: m.OwnerWorkerID}
	if m.Code == wire.CodeFunctionNamespaceConflict {
		c.log.Warn("function registration rejected", zap.String("function_id", m.FunctionID),
			zap.String("namespace", m.Namespace), zap.String("owner_worker_id", m.OwnerWorkerID))
		return
	}
	c.mu.Lock()
	if c.fatal == nil {
		c.fatal = err
		c.failPendingLocked(nil, err)
		c.notifyLocked()
	}
	c.mu.Unlock()
	c.superCancel()
	c.log.Error("engine rejected the worker; not reconnecting", zap.Error(err))
}
