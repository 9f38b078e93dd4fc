package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/iii-hq/skills-go/internal/buildinfo"
	"github.com/iii-hq/skills-go/internal/ids"
	"github.com/iii-hq/skills-go/internal/iii"
)

const callUsage = `Usage: skills call <function-id> [JSON | key=value | key:=json ...] [flags]

Triggers one function on the engine and prints its result: strings and
markdown resources raw, anything else as indented JSON.

The call goes to the namespace --namespace names, else $III_NAMESPACE's
(unset or blank: default), where an iii 0.23 engine looks the function up;
engine::* functions are always called in default.

Payload: one JSON argument ('{"uri":"iii://skills"}'), or key=value pairs
(string values) and key:=json pairs (raw JSON values, e.g. removed:=true),
or - to read one JSON document from standard input (for payloads too big
for a command line). No payload sends {}.

Examples:
  skills call skills::list
  skills call skills::resources-read uri=iii://skills
  skills call skill::fetch '{"uris":["iii://acme","iii://acme/billing"]}'
  skills call skills::unregister id=acme/old
  skills call skills::list --namespace shop

Flags:
`

// callCommand is "skills call": trigger one function and print its result.
type callCommand struct{ io stdio }

// Run connects, triggers the function and prints the result.
func (c callCommand) Run(ctx context.Context, args []string) error {
	fs := pflag.NewFlagSet("skills call", pflag.ContinueOnError)
	url := fs.String("url", "", "engine URL (default: $III_URL, else $III_ENGINE_URL, else ws://127.0.0.1:49134)")
	timeout := fs.Duration("timeout", 10*time.Second, "give up after this long, connection included")
	asJSON := fs.Bool("json", false, "always print the result as JSON")
	logLevel := fs.String("log-level", "error", "debug, info, warn or error")
	namespace := registerNamespace(fs)
	if help, err := parseFlags(fs, args, callUsage, c.io); help || err != nil {
		return err
	}
	ns, err := namespaceOf(fs, *namespace)
	if err != nil {
		return err
	}
	if fs.NArg() < 1 {
		return usagef("skills call: missing <function-id>; run 'skills call --help' for usage")
	}
	functionID := fs.Arg(0)
	payloadArgs := fs.Args()[1:]
	if len(payloadArgs) == 1 && payloadArgs[0] == "-" {
		in, err := readPayload(c.io.in)
		if err != nil {
			return usagef("skills call: %v", err)
		}
		payloadArgs = []string{in}
	}
	payload, err := callPayload(payloadArgs)
	if err != nil {
		return usagef("skills call: %v", err)
	}
	if *timeout <= 0 {
		return usagef("skills call: --timeout must be positive, got %s", *timeout)
	}
	engineURL, err := iii.CheckedURL(*url)
	if err != nil {
		return usagef("skills call: %v", err)
	}
	log, err := newLogger(fs.Name(), *logLevel, c.io.err)
	if err != nil {
		return err
	}

	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	// --timeout bounds dial, handshake and call together through ctx; the
	// client's own handshake limit is set past it, so that ctx always ends
	// first (and the error says which step was waiting) and a --timeout
	// over the default 10 s limit is not cut short by it.
	client := iii.New(iii.Options{URL: engineURL, Name: callerName(), Version: buildinfo.Version, Logger: log.Named("iii"),
		HandshakeTimeout: *timeout + time.Second, Namespace: ns})
	client.Start()
	defer client.Close()
	if err := client.WaitFirstAttempt(ctx); err != nil {
		if pending, ok := errors.AsType[*iii.PendingAttemptError](err); ok && errors.Is(err, context.DeadlineExceeded) {
			return fmt.Errorf("skills call: no connection to the iii engine at %s within --timeout %s: %s", engineURL, *timeout, pending.Stage)
		}
		return fmt.Errorf("skills call: cannot reach the iii engine at %s (is it running? start one with 'skills dev'): %w", engineURL, err)
	}
	result, err := client.Invoke(ctx, iii.Invocation{FunctionID: functionID, Data: payload, Timeout: time.Until(deadline(ctx))})
	if err != nil {
		var ie *iii.Error
		switch {
		case errors.As(err, &ie) && ie.Code == iii.CodeFunctionNotFound:
			if hint := elsewhereHint(ie.Message); hint != "" {
				return fmt.Errorf("error: %s: %s%s", ie.Code, ie.Message, hint)
			}
			return fmt.Errorf("error: %s: %s%s", ie.Code, ie.Message, suggestFunctions(ctx, client, functionID))
		case errors.As(err, &ie):
			return fmt.Errorf("error: %s: %s", ie.Code, ie.Message)
		case errors.Is(err, iii.ErrTimeout), errors.Is(err, context.DeadlineExceeded):
			return fmt.Errorf("error: %s did not answer within %s", functionID, *timeout)
		default:
			return fmt.Errorf("error: %w", err)
		}
	}
	if err := printResult(c.io.out, result, *asJSON); err != nil {
		return fmt.Errorf("skills call: %w", err)
	}
	return nil
}

// callerName is skills call's name on the engine: skills-call and a
// random suffix (iii.InstanceName), so that two calls at once, or a call
// made while the engine still tears down the previous call's connection,
// are not refused by an iii 0.23 engine.
func callerName() string { return iii.InstanceName("skills-call") }

// registerNamespace adds --namespace to fs (skills call, skills mcp).
func registerNamespace(fs *pflag.FlagSet) *string {
	return fs.String("namespace", "", "the engine namespace to call in, where the worker registered (default: $III_NAMESPACE; unset or blank: default)")
}

// namespaceOf is the namespace a command calls in: --namespace when
// given, else $III_NAMESPACE as the worker reads it (workerNamespace), so
// that an operator's tools reach the worker its environment describes.
// A --namespace given blank is refused, as the engine and the client
// refuse a namespace named and left blank; "default" names the default
// namespace.
func namespaceOf(fs *pflag.FlagSet, flag string) (string, error) {
	if !fs.Changed("namespace") {
		return workerNamespace(), nil
	}
	if strings.TrimSpace(flag) == "" {
		return "", usagef("%s: --namespace %q is blank: name a namespace (such as shop, or default), or leave the flag out to use $III_NAMESPACE", fs.Name(), flag)
	}
	return flag, nil
}

// elsewhereHint is what skills call adds to a function_not_found answer
// of an engine with namespaces (iii 0.23) when the function is
// registered in other namespaces (the engine's message ends "It is
// registered in namespace(s): a, b."): the flag that calls it in the
// first of them. "" for any other message.
func elsewhereHint(message string) string {
	_, list, ok := strings.Cut(message, "registered in namespace(s): ")
	if !ok {
		return ""
	}
	first, _, _ := strings.Cut(strings.TrimSuffix(list, "."), ",")
	return " Call it there with --namespace " + strings.TrimSpace(first) + "."
}

// maxStdinPayload bounds a payload read from standard input: the engine's
// 64 MiB frame.
const maxStdinPayload = 64 << 20

// readPayload reads the payload document from r (standard input).
func readPayload(r io.Reader) (string, error) {
	if r == nil {
		return "", errors.New("- reads the payload from standard input, but there is none")
	}
	b, err := io.ReadAll(io.LimitReader(r, maxStdinPayload+1))
	switch {
	case err != nil:
		return "", fmt.Errorf("read the payload from standard input: %w", err)
	case len(b) > maxStdinPayload:
		return "", fmt.Errorf("the payload on standard input is over %d bytes, the engine's frame limit", maxStdinPayload)
	}
	return string(b), nil
}

func deadline(ctx context.Context) time.Time {
	d, _ := ctx.Deadline()
	return d
}

// callPayload builds the payload from the positional arguments.
func callPayload(args []string) (json.RawMessage, error) {
	if len(args) == 0 {
		return json.RawMessage(`{}`), nil
	}
	if len(args) == 1 && !isPair(args[0]) {
		raw := []byte(args[0])
		if !json.Valid(raw) {
			var v any
			err := json.Unmarshal(raw, &v)
			return nil, fmt.Errorf("payload %s is not valid JSON (%v); pass one JSON value or key=value pairs", ids.Quote(args[0]), err)
		}
		return raw, nil
	}
	obj := make(map[string]json.RawMessage, len(args))
	for _, a := range args {
		if !isPair(a) {
			return nil, fmt.Errorf("argument %s is not key=value or key:=json; a JSON payload must be the only argument", ids.Quote(a))
		}
		key, value, _ := strings.Cut(a, "=")
		if k, ok := strings.CutSuffix(key, ":"); ok {
			if !json.Valid([]byte(value)) {
				return nil, fmt.Errorf("value of %s is not valid JSON: %s", ids.Quote(k), ids.Quote(value))
			}
			obj[k] = json.RawMessage(value)
			continue
		}
		s, _ := json.Marshal(value)
		obj[key] = s
	}
	return json.Marshal(obj)
}

// isPair reports whether a looks like key=value or key:=json with a
// non-empty key made of identifier characters.
func isPair(a string) bool {
	key, _, ok := strings.Cut(a, "=")
	key = strings.TrimSuffix(key, ":")
	if !ok || key == "" {
		return false
	}
	for _, r := range key {
		if !(r == '_' || r == '-' || r == '.' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// printResult writes strings and markdown resource contents raw, anything
// else as indented JSON. A call with no result prints nothing.
func printResult(w io.Writer, result json.RawMessage, asJSON bool) error {
	if len(result) == 0 {
		return nil
	}
	if !asJSON {
		if text, ok := rawText(result); ok {
			if !strings.HasSuffix(text, "\n") {
				text += "\n"
			}
			_, err := io.WriteString(w, text)
			return err
		}
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, result, "", "  "); err != nil {
		return fmt.Errorf("result is not JSON: %w", err)
	}
	buf.WriteByte('\n')
	_, err := w.Write(buf.Bytes())
	return err
}

// rawText extracts printable text: a JSON string, or the text of a
// resources/read envelope whose contents are markdown.
func rawText(result json.RawMessage) (string, bool) {
	var s string
	if json.Unmarshal(result, &s) == nil {
		return s, true
	}
	var env struct {
		Contents []struct {
			MimeType string `json:"mimeType"`
			Text     string `json:"text"`
		} `json:"contents"`
	}
	if json.Unmarshal(result, &env) != nil || len(env.Contents) == 0 {
		return "", false
	}
	var parts []string
	for _, c := range env.Contents {
		if c.MimeType != "text/markdown" {
			return "", false
		}
		parts = append(parts, c.Text)
	}
	return strings.Join(parts, "\n"), true
}
