package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/redis/go-redis/v9"
)

// State in Redis (docs/decisions.md D71, issue 28): with Options.StateURL
// the default namespace's store lives in a Redis server, laid out as iii's
// Redis state adapter lays it out (engine/src/workers/state/adapters/
// redis_adapter.rs in iii-hq/iii): one hash per scope, named
// "state:<scope>", whose fields are the keys and whose values are the
// JSON values as text. Engines sharing one Redis share the data; a write
// fires the state trigger only on the engine that made it, as in iii,
// whose Redis adapter publishes nothing.
//
// A write is acknowledged only once Redis has answered it. Every call
// goes to Redis (nothing is cached), so what another engine wrote is
// read at once; when Redis cannot be reached the call fails with the URL
// (its password hidden) and the cause, and the next call tries again.

// stateKeyPrefix names a scope's hash, as iii's adapter names it.
const stateKeyPrefix = "state:"

// redisCallTimeout bounds one state call's round trip to Redis, for a
// call of one row.
const redisCallTimeout = 5 * time.Second

// redisListSilence bounds how long a listing waits for the next bytes of
// its reply. Redis builds a reply whole before sending any of it, and a
// scope of 400 MB took 10–16 s to build on this 2-core machine under load
// (under 1 s quiet), so the bound is wider than a row's.
const redisListSilence = time.Minute

// redisURLForm is the form --state takes, for error messages.
const redisURLForm = "redis://host:port[/db]"

// redisSet atomically stores a field and returns what it held, in the
// steps iii's adapter takes (HGET, then HSET, in one script).
var redisSet = redis.NewScript(`
local old = redis.call('HGET', KEYS[1], ARGV[1])
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return old`)

// redisDel atomically removes a field and returns what it held; Redis
// removes a hash whose last field goes.
var redisDel = redis.NewScript(`
local old = redis.call('HGET', KEYS[1], ARGV[1])
if old then redis.call('HDEL', KEYS[1], ARGV[1]) end
return old`)

// redisState is a store kept in Redis.
type redisState struct {
	client *redis.Client
	url    string // as given, with any password hidden
	// ctx is the store's life, ended by close: a call in flight then
	// stops at once rather than at its timeout.
	ctx  context.Context
	stop context.CancelFunc
	// timeout bounds a call of one row (redisCallTimeout; shorter in
	// tests); the client's read timeout, how long a listing's reply may
	// be silent, is redisListSilence.
	timeout time.Duration
}

// StateURLError is a --state value that is not a Redis URL.
type StateURLError struct{ Value, Why string }

func (e *StateURLError) Error() string {
	return fmt.Sprintf("state URL %q is not one the engine can use (%s); give %s, such as redis://127.0.0.1:6379/0", redactURL(e.Value), e.Why, redisURLForm)
}

// CheckStateURL reports whether raw is a Redis URL Options.StateURL
// takes: redis://[user:password@]host[:port][/db], a db being a number
// from 0.
func CheckStateURL(raw string) error {
	_, err := parseStateURL(raw)
	return err
}

func parseStateURL(raw string) (*redis.Options, error) {
	bad := func(why string) error { return &StateURLError{Value: raw, Why: why} }
	u, err := url.Parse(raw)
	if err != nil {
		return nil, bad("it does not parse as a URL")
	}
	if u.Scheme != "redis" {
		return nil, bad("the scheme must be redis://")
	}
	if u.Hostname() == "" {
		return nil, bad("it names no host")
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return nil, bad("the port must be a number from 1 to 65535")
		}
	} else if strings.HasSuffix(u.Host, ":") {
		return nil, bad("the port is empty")
	}
	if db := strings.TrimPrefix(u.Path, "/"); db != "" {
		if n, err := strconv.Atoi(db); err != nil || n < 0 {
			return nil, bad("the path must be a database number, such as /0")
		}
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, bad("it has a query or fragment, which the engine does not take")
	}
	opts, err := redis.ParseURL(raw)
	if err != nil {
		return nil, bad(err.Error())
	}
	if u.Port() == "" {
		opts.Addr = net.JoinHostPort(u.Hostname(), "6379")
	}
	// RESP2 keeps HGETALL a flat list in the hash's order, and no write
	// is ever sent twice: a retry after a reply lost on a dying
	// connection could apply it again and report the wrong old value.
	opts.Protocol = 2
	opts.MaxRetries = -1
	opts.DialTimeout = 2 * time.Second
	opts.Dialer = dialProgress // a read deadline bounds silence, not a whole reply
	opts.ContextTimeoutEnabled = true
	opts.DisableIdentity = true
	return opts, nil
}

// RedactStateURL is a state URL with any password hidden, for logs.
func RedactStateURL(raw string) string { return redactURL(raw) }

// redactURL hides a URL's password, for messages and logs.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	return u.Redacted()
}

// openRedisState checks raw and makes the client; it does not wait for
// Redis, which may come up later (see ping).
func openRedisState(raw string) (*redisState, error) {
	return openRedisStateWithin(raw, redisCallTimeout, redisListSilence)
}

// openRedisStateWithin is openRedisState with the bound of a call of one
// row and of a listing's silence.
func openRedisStateWithin(raw string, timeout, silence time.Duration) (*redisState, error) {
	opts, err := parseStateURL(raw)
	if err != nil {
		return nil, err
	}
	// A call with a deadline (callContext) waits until it; one without
	// (a listing) waits for each read at most the read timeout.
	opts.ReadTimeout = silence
	ctx, stop := context.WithCancel(context.Background())
	return &redisState{client: redis.NewClient(opts), url: redactURL(raw), ctx: ctx, stop: stop, timeout: timeout}, nil
}

// ping reports whether Redis answers now.
func (r *redisState) ping(ctx context.Context) error {
	if err := r.client.Ping(ctx).Err(); err != nil {
		return fmt.Errorf("Redis at %s does not answer: %w", r.url, err) //nolint:staticcheck // Redis is a name
	}
	return nil
}

func (r *redisState) close() {
	r.stop()
	_ = r.client.Close()
}

// readFailed and writeFailed name the server in an error from Redis. A
// write that failed was not acknowledged; it may still have been applied
// when the connection broke after Redis received it.
func (r *redisState) readFailed(err error) error {
	return fmt.Errorf("state not read from Redis at %s: %w", r.url, err)
}

func (r *redisState) writeFailed(err error) error {
	return fmt.Errorf("state not written to Redis at %s: %w; the write was not acknowledged", r.url, err)
}

// callContext bounds one call of a row within the store's life.
func (r *redisState) callContext() (context.Context, context.CancelFunc) {
	return context.WithTimeout(r.ctx, r.timeout)
}

// set stores value at scope/key and returns the previous value (nil when
// there was none).
func (r *redisState) set(scope, key string, value json.RawMessage) (json.RawMessage, error) {
	ctx, cancel := r.callContext()
	defer cancel()
	return r.oldValue(redisSet.Run(ctx, r.client, []string{stateKeyPrefix + scope}, key, string(value)))
}

// del removes scope/key and returns what it held (nil when nothing).
func (r *redisState) del(scope, key string) (json.RawMessage, error) {
	ctx, cancel := r.callContext()
	defer cancel()
	return r.oldValue(redisDel.Run(ctx, r.client, []string{stateKeyPrefix + scope}, key))
}

// oldValue reads a script's answer, the value a field held. A value
// another writer left that is not JSON reads as null, as iii's adapter
// reads it: the write itself was done.
func (r *redisState) oldValue(cmd *redis.Cmd) (json.RawMessage, error) {
	s, err := cmd.Text()
	if errors.Is(err, redis.Nil) {
		return nil, nil
	}
	if err != nil {
		return nil, r.writeFailed(err)
	}
	v, ok := storedValue(s)
	if !ok {
		return json.RawMessage("null"), nil
	}
	return v, nil
}

// storedValue is a field's text as a stored value: canonical JSON (a
// value another writer stored in another form is brought to it), or not
// ok when it is not JSON.
func storedValue(s string) (json.RawMessage, bool) {
	// The reply's bytes are used as they are, not copied (a listing of
	// a large scope would otherwise hold it twice): a stored value is
	// never written in place (D52), and canonical makes a new slice.
	b := json.RawMessage(unsafe.Slice(unsafe.StringData(s), len(s)))
	if !json.Valid(b) {
		return nil, false
	}
	if !isCanonical(b) {
		b = canonical(b)
	}
	return b, true
}

// notJSON is a field that holds something other than JSON, which iii's
// adapter refuses to read as well.
func (r *redisState) notJSON(scope, key string) error {
	return fmt.Errorf("Redis at %s: the value of field %q in hash %q is not JSON; some other program wrote it. Delete or fix that field", //nolint:staticcheck // Redis is a name
		r.url, key, stateKeyPrefix+scope)
}

// get returns scope/key's value; ok is false when it is missing.
func (r *redisState) get(scope, key string) (json.RawMessage, bool, error) {
	ctx, cancel := r.callContext()
	defer cancel()
	s, err := r.client.HGet(ctx, stateKeyPrefix+scope, key).Result()
	if errors.Is(err, redis.Nil) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, r.readFailed(err)
	}
	v, ok := storedValue(s)
	if !ok {
		return nil, false, r.notJSON(scope, key)
	}
	return v, true, nil
}

// rows returns a scope's keys and values in the hash's order (for a small
// hash, the order of first writes); an unknown scope is empty.
func (r *redisState) rows(scope string) (keys []string, values []json.RawMessage, err error) {
	// A listing's reply grows with the scope, so no bound on the whole
	// call fits it: it runs within the store's life, and each read of its
	// reply waits at most redisListSilence for bytes (progressConn).
	flat, err := r.client.Do(r.ctx, "HGETALL", stateKeyPrefix+scope).StringSlice()
	if err != nil {
		return nil, nil, r.readFailed(err)
	}
	keys = make([]string, 0, len(flat)/2)
	values = make([]json.RawMessage, 0, len(flat)/2)
	for i := 0; i+1 < len(flat); i += 2 {
		v, ok := storedValue(flat[i+1])
		if !ok {
			return nil, nil, r.notJSON(scope, flat[i])
		}
		keys = append(keys, flat[i])
		values = append(values, v)
	}
	return keys, values, nil
}

// values lists a scope's values in the hash's order (HVALS: the keys are
// not fetched).
func (r *redisState) values(scope string) ([]json.RawMessage, error) {
	flat, err := r.client.Do(r.ctx, "HVALS", stateKeyPrefix+scope).StringSlice() // bounded as rows is
	if err != nil {
		return nil, r.readFailed(err)
	}
	values := make([]json.RawMessage, len(flat))
	for i, text := range flat {
		v, ok := storedValue(text)
		if !ok {
			// HVALS does not say whose value it was: the full read
			// names the field (or the value was fixed meanwhile).
			_, values, err := r.rows(scope)
			return values, err
		}
		values[i] = v
	}
	return values, nil
}

// groups lists every scope that has a hash, sorted. Redis removes a hash
// with its last field, so a scope emptied by deletes is not listed (as
// with iii's adapter).
func (r *redisState) groups() ([]string, error) {
	ctx, cancel := r.callContext()
	defer cancel()
	seen := map[string]bool{}
	var cursor uint64
	for {
		keys, next, err := r.client.ScanType(ctx, cursor, stateKeyPrefix+"*", 1000, "hash").Result()
		if err != nil {
			return nil, r.readFailed(err)
		}
		for _, k := range keys {
			seen[strings.TrimPrefix(k, stateKeyPrefix)] = true
		}
		if cursor = next; cursor == 0 {
			break
		}
	}
	out := make([]string, 0, len(seen))
	for g := range seen {
		out = append(out, g)
	}
	slices.Sort(out)
	return out, nil
}
