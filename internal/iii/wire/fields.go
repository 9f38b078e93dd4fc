package wire

// This file is the one spelling of every JSON key of the protocol: Decode
// looks keys up in fieldByName and names them in its errors through
// fieldNames, and Encode writes them from fieldNames. The json struct tags
// of the frame types in message.go repeat the names for code that uses
// encoding/json on these types; TestFieldNamesAgree (fields_test.go) checks
// that tags, this table and what Encode writes and Decode reads are the
// same for every frame type.

// field names a key any frame may carry.
type field int

const (
	fType field = iota
	fID
	fFunctionID
	fInvocationID
	fData
	fMetadata
	fTraceparent
	fBaggage
	fAction
	fNamespace
	fResult
	fError
	fDescription
	fRequestFormat
	fResponseFormat
	fInvocation
	fTriggerType
	fConfig
	fTriggerRequestFormat
	fCallRequestFormat
	fTriggerNamespace
	fName
	fParentServiceID
	fWorkerID
	fReattachToken
	fPreviousWorkerID
	fCode
	fWorkerName
	fOwnerWorkerID
	fMessage
	fStacktrace
	fQueue
	numFields
)

// fieldNames is the JSON key of each field.
var fieldNames = [numFields]string{
	fType:                 "type",
	fID:                   "id",
	fFunctionID:           "function_id",
	fInvocationID:         "invocation_id",
	fData:                 "data",
	fMetadata:             "metadata",
	fTraceparent:          "traceparent",
	fBaggage:              "baggage",
	fAction:               "action",
	fNamespace:            "namespace",
	fResult:               "result",
	fError:                "error",
	fDescription:          "description",
	fRequestFormat:        "request_format",
	fResponseFormat:       "response_format",
	fInvocation:           "invocation",
	fTriggerType:          "trigger_type",
	fConfig:               "config",
	fTriggerRequestFormat: "trigger_request_format",
	fCallRequestFormat:    "call_request_format",
	fTriggerNamespace:     "trigger_namespace",
	fName:                 "name",
	fParentServiceID:      "parent_service_id",
	fWorkerID:             "worker_id",
	fReattachToken:        "reattach_token",
	fPreviousWorkerID:     "previous_worker_id",
	fCode:                 "code",
	fWorkerName:           "worker_name",
	fOwnerWorkerID:        "owner_worker_id",
	fMessage:              "message",
	fStacktrace:           "stacktrace",
	fQueue:                "queue",
}

var fieldByName = func() map[string]field {
	m := make(map[string]field, numFields)
	for i, n := range fieldNames {
		m[n] = field(i)
	}
	return m
}()
