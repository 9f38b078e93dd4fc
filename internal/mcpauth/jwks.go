package mcpauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// The JWKS cache's timing.
const (
	// jwksFetchTimeout bounds one fetch of the key set: a request waits at
	// most this long for the authorization server, never more.
	jwksFetchTimeout = 5 * time.Second
	// jwksMaxAge is how long a fetched key set is used before it is
	// fetched again.
	jwksMaxAge = 10 * time.Minute
	// jwksRetry is how long after a fetch (good or bad) a token naming a
	// key the set lacks, or a failed fetch, waits before the next fetch:
	// a flood of tokens with made-up key ids costs one fetch, not one each.
	jwksRetry = 10 * time.Second
	// jwksMaxBytes bounds the key set's size.
	jwksMaxBytes = 1 << 20
)

// ErrKeysUnavailable is a token that could not be checked because the
// authorization server's keys could not be fetched: the server's fault,
// not the client's (503).
var ErrKeysUnavailable = errors.New("the authorization server's signing keys cannot be fetched")

// jwks is the authorization server's key set, fetched from its URL when
// first needed, again when jwksMaxAge has passed or a token names a key
// it lacks (at most once a jwksRetry). A set fetched before is used while
// a new fetch fails.
type jwks struct {
	url    string
	client *http.Client
	now    func() time.Time

	mu      sync.Mutex // held across a fetch: requests wait on the one fetch, for at most jwksFetchTimeout
	set     *jose.JSONWebKeySet
	fetched time.Time // when set was fetched
	tried   time.Time // when the last fetch was tried
	lastErr error     // the last fetch's failure, nil after a good one
}

// keys are the keys of the set named kid (every key when kid is empty),
// fetching the set if it is stale, missing, or lacks kid.
func (k *jwks) keys(ctx context.Context, kid string) ([]jose.JSONWebKey, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	now := k.now()
	found := k.lookup(kid)
	stale := k.set == nil || now.Sub(k.fetched) > jwksMaxAge
	if len(found) > 0 && !stale {
		return found, nil
	}
	if now.Sub(k.tried) < jwksRetry && !k.tried.IsZero() {
		// Fetched (or tried) just now: answer from what that gave.
		if len(found) > 0 {
			return found, nil
		}
		if k.set == nil {
			return nil, k.lastErr
		}
		return nil, nil
	}
	k.tried = now
	set, err := k.fetch(ctx)
	if err != nil {
		k.lastErr = err
		if found := k.lookup(kid); len(found) > 0 {
			return found, nil // the set fetched before still names the key
		}
		return nil, err
	}
	k.set, k.fetched, k.lastErr = set, now, nil
	return k.lookup(kid), nil
}

// lookup is the keys of the cached set named kid.
func (k *jwks) lookup(kid string) []jose.JSONWebKey {
	if k.set == nil {
		return nil
	}
	if kid == "" {
		return k.set.Keys
	}
	return k.set.Key(kid)
}

// fetch gets the key set, within jwksFetchTimeout.
func (k *jwks) fetch(ctx context.Context) (*jose.JSONWebKeySet, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), jwksFetchTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, k.url, nil)
	if err != nil {
		return nil, fmt.Errorf("%w from %s: %v", ErrKeysUnavailable, k.url, err)
	}
	req.Header.Set("Accept", "application/json")
	res, err := k.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%w from %s: %v", ErrKeysUnavailable, k.url, err)
	}
	defer res.Body.Close() //nolint:errcheck // read-only
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%w from %s: HTTP %s", ErrKeysUnavailable, k.url, res.Status)
	}
	body, err := io.ReadAll(io.LimitReader(res.Body, jwksMaxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%w from %s: %v", ErrKeysUnavailable, k.url, err)
	}
	if len(body) > jwksMaxBytes {
		return nil, fmt.Errorf("%w from %s: the key set is larger than %d bytes", ErrKeysUnavailable, k.url, jwksMaxBytes)
	}
	var set jose.JSONWebKeySet
	if err := json.Unmarshal(body, &set); err != nil {
		return nil, fmt.Errorf("%w from %s: not a JSON Web Key Set: %v", ErrKeysUnavailable, k.url, err)
	}
	return &set, nil
}
