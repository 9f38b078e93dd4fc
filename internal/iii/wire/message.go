// Package wire defines the iii engine's worker protocol frames (0.22.1 wire,
// tolerant of 0.23 fields) and their JSON encoding. Both the client in
// package iii and the local engine in package engine speak through it.
//
// Every frame is one JSON object discriminated by a lowercase "type". Decode
// rejects frames the engine would drop (missing required fields, a
// non-UUID invocation_id, an unknown type) so that callers can log and
// ignore them, exactly as the engine does.
package wire

import "encoding/json"

// Frame type discriminators.
const (
	TypeRegisterFunction          = "registerfunction"
	TypeUnregisterFunction        = "unregisterfunction"
	TypeInvokeFunction            = "invokefunction"
	TypeInvocationResult          = "invocationresult"
	TypeRegisterTriggerType       = "registertriggertype"
	TypeRegisterTrigger           = "registertrigger"
	TypeUnregisterTrigger         = "unregistertrigger"
	TypeTriggerRegistrationResult = "triggerregistrationresult"
	TypeRegisterService           = "registerservice"
	TypePing                      = "ping"
	TypePong                      = "pong"
	TypeWorkerRegistered          = "workerregistered"
	TypeReattach                  = "reattach"
	TypeRegistrationRejected      = "registrationrejected"
)

// Message is one protocol frame.
type Message interface {
	// MessageType returns the frame's "type" discriminator.
	MessageType() string
}

// ErrorBody is the error carried by invocationresult and
// triggerregistrationresult frames.
type ErrorBody struct {
	Code       string `json:"code"`
	Message    string `json:"message"`
	Stacktrace string `json:"stacktrace,omitempty"`
}

// Action selects how an invocation is delivered. Absent means synchronous.
type Action struct {
	Type  string `json:"type"`            // "void" or "enqueue"
	Queue string `json:"queue,omitempty"` // enqueue only
}

// Action types.
const (
	ActionVoid    = "void"
	ActionEnqueue = "enqueue"
)

// RegisterFunction (worker→engine) announces a function the worker serves.
type RegisterFunction struct {
	ID             string          `json:"id"`
	Description    string          `json:"description,omitempty"`
	RequestFormat  json.RawMessage `json:"request_format,omitempty"`
	ResponseFormat json.RawMessage `json:"response_format,omitempty"`
	Metadata       json.RawMessage `json:"metadata,omitempty"`
	Invocation     json.RawMessage `json:"invocation,omitempty"`
}

// UnregisterFunction (worker→engine) withdraws a function.
type UnregisterFunction struct {
	ID string `json:"id"`
}

// InvokeFunction asks for a function to run: worker→engine to call
// something, engine→worker to run one of the worker's functions.
// Data is required on the wire; use {} for "no input".
type InvokeFunction struct {
	InvocationID string          `json:"invocation_id,omitempty"`
	FunctionID   string          `json:"function_id"`
	Data         json.RawMessage `json:"data"`
	Metadata     json.RawMessage `json:"metadata,omitempty"`
	Traceparent  string          `json:"traceparent,omitempty"`
	Baggage      string          `json:"baggage,omitempty"`
	Action       *Action         `json:"action,omitempty"`
	Namespace    string          `json:"namespace,omitempty"`
}

// InvocationResult answers an InvokeFunction that carried an invocation id.
// A nil Result means the field is absent ("nothing"); the bytes "null" are
// an explicit JSON null.
type InvocationResult struct {
	InvocationID string          `json:"invocation_id"`
	FunctionID   string          `json:"function_id"`
	Result       json.RawMessage `json:"result,omitempty"`
	Error        *ErrorBody      `json:"error,omitempty"`
	Traceparent  string          `json:"traceparent,omitempty"`
	Baggage      string          `json:"baggage,omitempty"`
}

// RegisterTriggerType (worker→engine) makes the sender the provider of a
// trigger type. Description is required on the wire (it may be empty).
type RegisterTriggerType struct {
	ID                   string          `json:"id"`
	Description          string          `json:"description"`
	TriggerRequestFormat json.RawMessage `json:"trigger_request_format,omitempty"`
	CallRequestFormat    json.RawMessage `json:"call_request_format,omitempty"`
	Namespace            string          `json:"namespace,omitempty"`
}

// RegisterTrigger binds a function to a trigger type: worker→engine from a
// subscriber, engine→worker when forwarded to the type's provider. Config is
// required on the wire; use {} for "no config".
type RegisterTrigger struct {
	ID               string          `json:"id"`
	TriggerType      string          `json:"trigger_type"`
	FunctionID       string          `json:"function_id"`
	Config           json.RawMessage `json:"config"`
	Metadata         json.RawMessage `json:"metadata,omitempty"`
	Namespace        string          `json:"namespace,omitempty"`
	TriggerNamespace string          `json:"trigger_namespace,omitempty"`
}

// UnregisterTrigger removes a binding by id.
type UnregisterTrigger struct {
	ID          string `json:"id"`
	TriggerType string `json:"trigger_type,omitempty"`
}

// TriggerRegistrationResult is a provider's answer to a forwarded
// registertrigger (no Error = accepted), and the engine's failure report to
// the binding's originator.
type TriggerRegistrationResult struct {
	ID          string     `json:"id"`
	TriggerType string     `json:"trigger_type"`
	FunctionID  string     `json:"function_id"`
	Error       *ErrorBody `json:"error,omitempty"`
}

// RegisterService groups functions for the console.
type RegisterService struct {
	ID              string `json:"id"`
	Name            string `json:"name,omitempty"`
	Description     string `json:"description,omitempty"`
	ParentServiceID string `json:"parent_service_id,omitempty"`
}

// Ping is the JSON keepalive request; the engine answers with Pong.
type Ping struct{}

// Pong answers Ping.
type Pong struct{}

// WorkerRegistered is the engine's first frame on every connection.
type WorkerRegistered struct {
	WorkerID      string `json:"worker_id"`
	ReattachToken string `json:"reattach_token,omitempty"`
}

// Reattach (worker→engine, first frame of a reconnect) asks the engine to
// evict the previous connection at once.
type Reattach struct {
	PreviousWorkerID string `json:"previous_worker_id"`
	ReattachToken    string `json:"reattach_token,omitempty"`
}

// RegistrationRejected (engine→worker, 0.23) refuses a registration.
type RegistrationRejected struct {
	Code          string `json:"code"`
	Namespace     string `json:"namespace"`
	WorkerName    string `json:"worker_name,omitempty"`
	FunctionID    string `json:"function_id,omitempty"`
	OwnerWorkerID string `json:"owner_worker_id"`
}

// Rejection codes of RegistrationRejected.
const (
	CodeFunctionNamespaceConflict = "FUNCTION_NAMESPACE_CONFLICT"
	CodeWorkerNamespaceConflict   = "WORKER_NAMESPACE_CONFLICT"
)

func (RegisterFunction) MessageType() string          { return TypeRegisterFunction }
func (UnregisterFunction) MessageType() string        { return TypeUnregisterFunction }
func (InvokeFunction) MessageType() string            { return TypeInvokeFunction }
func (InvocationResult) MessageType() string          { return TypeInvocationResult }
func (RegisterTriggerType) MessageType() string       { return TypeRegisterTriggerType }
func (RegisterTrigger) MessageType() string           { return TypeRegisterTrigger }
func (UnregisterTrigger) MessageType() string         { return TypeUnregisterTrigger }
func (TriggerRegistrationResult) MessageType() string { return TypeTriggerRegistrationResult }
func (RegisterService) MessageType() string           { return TypeRegisterService }
func (Ping) MessageType() string                      { return TypePing }
func (Pong) MessageType() string                      { return TypePong }
func (WorkerRegistered) MessageType() string          { return TypeWorkerRegistered }
func (Reattach) MessageType() string                  { return TypeReattach }
func (RegistrationRejected) MessageType() string      { return TypeRegistrationRejected }
