package registry

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/iii-hq/skills-go/internal/ids"
)

// Roles and content types an MCP prompt message may carry (MCP prompts/get;
// docs/decisions.md D29).
var (
	messageRoles        = []string{"user", "assistant"}
	messageContentTypes = []string{"text", "image", "audio", "resource", "resource_link"}
)

// checkMessages validates the messages array a prompt handler returned and
// normalises it for MCP clients (D29). A message's role must be user or
// assistant and its content an MCP content object; a plain string content
// becomes a text content. Valid input that needs no normalisation is
// returned byte for byte, as 0.2 passed it; anything else is an error
// naming the handler and the first wrong field.
func checkMessages(handler string, raw json.RawMessage) (json.RawMessage, error) {
	var messages []json.RawMessage
	if err := json.Unmarshal(raw, &messages); err != nil {
		return nil, fmt.Errorf("prompt handler %s returned messages that are not a JSON array: %v", ids.Unquoted(handler), err)
	}
	changed := false
	for i, m := range messages {
		fixed, err := checkMessage(m)
		if err != nil {
			return nil, fmt.Errorf("prompt handler %s returned messages[%d]%s", ids.Unquoted(handler), i, err.Error())
		}
		if fixed != nil {
			messages[i] = fixed
			changed = true
		}
	}
	if !changed {
		return raw, nil
	}
	out := []byte{'['}
	for i, m := range messages {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, m...)
	}
	return append(out, ']'), nil
}

// fieldError is what is wrong with one field of a message: its text starts
// with the field's path below the message (".role", ".content.type"), so
// the caller can prefix "messages[i]".
type fieldError string

func (e fieldError) Error() string { return string(e) }

func fieldErrorf(format string, args ...any) error {
	return fieldError(fmt.Sprintf(format, args...))
}

// checkMessage validates one message. It returns nil when the message can
// be passed on as it is, or the message rewritten with its string content
// turned into a text content.
func checkMessage(m json.RawMessage) (json.RawMessage, error) {
	fields, err := objectFields(m)
	if err != nil {
		return nil, fieldErrorf(" is %s; each message must be an object with role and content", jsonKind(m))
	}
	role, ok := fields.get("role")
	if !ok {
		return nil, fieldErrorf(".role is missing; allowed: %s", strings.Join(messageRoles, ", "))
	}
	if err := oneOf(".role", role, messageRoles); err != nil {
		return nil, err
	}
	content, ok := fields.get("content")
	if !ok {
		return nil, fieldErrorf(".content is missing; it must be a content object such as {\"type\":\"text\",\"text\":\"…\"}")
	}
	if s, isString := jsonString(content); isString {
		text, err := json.Marshal(textContent{Type: "text", Text: s})
		if err != nil {
			return nil, fieldErrorf(".content cannot be encoded: %v", err)
		}
		fields.set("content", text)
		return fields.encode(), nil
	}
	return nil, checkContent(content)
}

// checkContent validates an MCP content object: its type and the fields
// that type requires.
func checkContent(content json.RawMessage) error {
	fields, err := objectFields(content)
	if err != nil {
		return fieldErrorf(".content is %s; it must be a string or a content object with a type (%s)", jsonKind(content), strings.Join(messageContentTypes, ", "))
	}
	typ, ok := fields.get("type")
	if !ok {
		return fieldErrorf(".content.type is missing; allowed: %s", strings.Join(messageContentTypes, ", "))
	}
	if err := oneOf(".content.type", typ, messageContentTypes); err != nil {
		return err
	}
	t, _ := jsonString(typ)
	var required []string
	switch t {
	case "text":
		required = []string{"text"}
	case "image", "audio":
		required = []string{"data", "mimeType"}
	case "resource_link":
		required = []string{"uri", "name"}
	case "resource":
		return checkEmbeddedResource(fields)
	}
	for _, name := range required {
		v, ok := fields.get(name)
		if _, isString := jsonString(v); !ok || !isString {
			return fieldErrorf(".content.%s is %s; a %s content needs a string %s", name, describeField(v, ok), t, name)
		}
	}
	return nil
}

// checkEmbeddedResource validates {"type":"resource","resource":{uri, text|blob}}.
func checkEmbeddedResource(content orderedObject) error {
	v, ok := content.get("resource")
	if !ok {
		return fieldErrorf(".content.resource is missing; a resource content needs {\"uri\", \"text\" or \"blob\"}")
	}
	res, err := objectFields(v)
	if err != nil {
		return fieldErrorf(".content.resource is %s; it must be an object with uri and text or blob", jsonKind(v))
	}
	uri, ok := res.get("uri")
	if _, isString := jsonString(uri); !ok || !isString {
		return fieldErrorf(".content.resource.uri is %s; an embedded resource needs a string uri", describeField(uri, ok))
	}
	text, hasText := res.get("text")
	blob, hasBlob := res.get("blob")
	_, textOK := jsonString(text)
	_, blobOK := jsonString(blob)
	if !(hasText && textOK) && !(hasBlob && blobOK) {
		return fieldErrorf(".content.resource has neither a string text nor a string blob; an embedded resource needs one of them")
	}
	return nil
}

// oneOf checks that v is a JSON string among allowed.
func oneOf(path string, v json.RawMessage, allowed []string) error {
	s, ok := jsonString(v)
	if !ok {
		return fieldErrorf("%s is %s; allowed: %s", path, jsonKind(v), strings.Join(allowed, ", "))
	}
	for _, a := range allowed {
		if s == a {
			return nil
		}
	}
	return fieldErrorf("%s %s; allowed: %s", path, ids.Quote(s), strings.Join(allowed, ", "))
}

// describeField names what a field holds for an error: "missing" or its
// JSON kind.
func describeField(v json.RawMessage, present bool) string {
	if !present {
		return "missing"
	}
	return jsonKind(v)
}

// jsonKind names the JSON type of a value, with an article.
func jsonKind(v json.RawMessage) string {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return "empty"
	}
	switch v[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	default:
		return "a number"
	}
}

// orderedObject is a JSON object's members in their original order, so a
// rewritten message keeps its other fields as the handler wrote them.
type orderedObject struct {
	keys   []string
	values []json.RawMessage
}

// objectFields decodes a JSON object into its members in order.
func objectFields(raw json.RawMessage) (orderedObject, error) {
	var o orderedObject
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return o, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return o, fmt.Errorf("not an object")
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return o, err
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return o, err
		}
		o.keys = append(o.keys, key)
		o.values = append(o.values, v)
	}
	return o, nil
}

// get returns the last value of key (JSON decoders keep the last of
// duplicate keys, and so do MCP clients).
func (o orderedObject) get(key string) (json.RawMessage, bool) {
	for i := len(o.keys) - 1; i >= 0; i-- {
		if o.keys[i] == key {
			return o.values[i], true
		}
	}
	return nil, false
}

// set replaces every value of key.
func (o orderedObject) set(key string, v json.RawMessage) {
	for i, k := range o.keys {
		if k == key {
			o.values[i] = v
		}
	}
}

// encode writes the object back in its original member order.
func (o orderedObject) encode() json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		key, _ := json.Marshal(k)
		b.Write(key)
		b.WriteByte(':')
		b.Write(o.values[i])
	}
	b.WriteByte('}')
	return b.Bytes()
}
