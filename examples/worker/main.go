// Command worker is an example iii worker that publishes content to the
// skills registry. At boot it registers one skill body (acme/status-guide)
// and one slash-command prompt (acme-summarize, rendered by the function
// acme::summarize it serves), and it serves acme::status, the function
// behind the section URI iii://fn/acme/status.
//
// Start the local engine with the skills worker first, then this worker
// (examples/README.md walks through it):
//
//	go run ./cmd/skills dev --config examples/config.yaml
//	go run ./examples/worker
//
// Start order is not guaranteed in a real deployment: the skills worker may
// come up after this one, or restart. Registration is therefore retried with
// capped exponential backoff, as the skills README asks of every worker.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"go.uber.org/zap"

	"github.com/iii-hq/skills-go/internal/iii"
)

// Registration backoff: the first retry after 250 ms, doubling up to 5 s
// between attempts, giving up after two minutes. Each attempt is one call
// bounded by attemptTimeout.
const (
	initialBackoff   = 250 * time.Millisecond
	maxBackoff       = 5 * time.Second
	registerPatience = 2 * time.Minute
	attemptTimeout   = 5 * time.Second
)

// statusGuide is the body registered as iii://acme/status-guide. It lives in
// state, next to the filesystem skills under examples/skills.
const statusGuide = `# Acme status guide

How to read the report served at iii://fn/acme/status before telling a customer anything about an outage.

- ` + "`state: ok`" + ` means every Acme system answers; look for the cause elsewhere.
- ` + "`state: degraded`" + ` names the affected system; quote it and promise an update within the hour.
- The report is generated on each read, so fetch it again rather than reusing an old copy.

Back to the overview: [` + "`acme`" + `](iii://acme). Live report: [` + "`acme/status`" + `](iii://fn/acme/status).
`

// statusReport is what acme::status returns. A {"content": ...} object is
// served by the skills worker as text/markdown.
type statusReport struct {
	Content string `json:"content"`
}

// summarizeArgs are the arguments of the acme-summarize prompt, as the
// skills worker passes them to acme::summarize.
type summarizeArgs struct {
	Topic    string `json:"topic" jsonschema:"description=What to summarise"`
	Audience string `json:"audience,omitempty" jsonschema:"description=Who the summary is for (default: a customer)"`
}

func main() {
	url := flag.String("url", "", "engine URL (default: $III_URL, else $III_ENGINE_URL, else "+iii.DefaultURL+")")
	flag.Parse()

	logCfg := zap.NewDevelopmentConfig()
	logCfg.Level = zap.NewAtomicLevelAt(zap.InfoLevel)
	logCfg.DisableStacktrace = true
	log, err := logCfg.Build()
	if err != nil {
		fmt.Fprintf(os.Stderr, "worker: %v\n", err)
		os.Exit(1)
	}
	defer log.Sync() //nolint:errcheck // best effort on exit

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, iii.ResolveURL(*url), log); err != nil {
		log.Error("worker stopped", zap.Error(err))
		os.Exit(1)
	}
}

// run serves the example functions and publishes the skill and prompt
// until ctx is done.
func run(ctx context.Context, url string, log *zap.Logger) error {
	started := time.Now()
	c := iii.New(iii.Options{
		URL:         url,
		Name:        "acme",
		Description: "Example worker publishing Acme skills and prompts to the skills registry.",
		Version:     "0.1.0",
		Logger:      log.Named("iii"),
	})

	// Functions are registered before Start so the first handshake carries
	// them; the client replays them on every reconnect.
	c.RegisterFunction(iii.NewFunction("acme::status",
		"Live status of the Acme example worker, served as iii://fn/acme/status.",
		func(ctx context.Context, _ struct{}) (statusReport, error) {
			return statusReport{Content: fmt.Sprintf(
				"# Acme status\n\nstate: ok\n\n- checked at %s\n- worker up for %s\n",
				time.Now().UTC().Format(time.RFC3339), time.Since(started).Round(time.Second),
			)}, nil
		}))
	c.RegisterFunction(iii.NewFunction("acme::summarize",
		"Render the acme-summarize slash command.",
		summarize))

	c.Start()
	defer c.Close()
	log.Info("connecting", zap.String("url", url))

	// Publishing runs beside serving: acme::status must answer even while
	// the skills worker is still missing.
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := publish(ctx, c, log); err != nil && ctx.Err() == nil {
			log.Warn("skills handshake gave up; start the skills worker, then restart this one", zap.Error(err))
		}
	}()
	<-ctx.Done()
	wg.Wait()
	log.Info("shutting down")
	return nil
}

// summarize renders the acme-summarize prompt. The argument list declared
// with prompts::register is only shown to the user; nothing enforces it, so
// the handler checks its own input. A plain string becomes one user message.
func summarize(_ context.Context, in summarizeArgs) (string, error) {
	topic := strings.TrimSpace(in.Topic)
	if topic == "" {
		return "", &iii.Error{Code: iii.CodeInvalidArgument, Message: "acme-summarize needs a non-empty `topic` argument, e.g. topic=refunds"}
	}
	audience := strings.TrimSpace(in.Audience)
	if audience == "" {
		audience = "a customer"
	}
	return fmt.Sprintf("Summarise Acme's %s for %s in five bullet points. "+
		"Read iii://acme first and fetch only the sub-skills you need; "+
		"quote iii://fn/acme/status if the topic touches an outage.", topic, audience), nil
}

// publish registers the skill, then the prompt, each retried until the
// skills worker accepts it or registerPatience has passed.
func publish(ctx context.Context, c *iii.Client, log *zap.Logger) error {
	ctx, cancel := context.WithTimeout(ctx, registerPatience)
	defer cancel()
	if err := c.WaitReady(ctx); err != nil {
		return fmt.Errorf("no engine connection: %w", err)
	}
	if err := register(ctx, c, log, "skills::register", map[string]any{
		"id":    "acme/status-guide",
		"skill": statusGuide,
	}); err != nil {
		return err
	}
	if err := register(ctx, c, log, "prompts::register", map[string]any{
		"name":        "acme-summarize",
		"description": "Summarise one Acme topic (billing, refunds, onboarding, status) for a given audience.",
		"arguments": []map[string]any{
			{"name": "topic", "description": "What to summarise", "required": true},
			{"name": "audience", "description": "Who the summary is for", "required": false},
		},
		"function_id": "acme::summarize",
	}); err != nil {
		return err
	}
	log.Info("published iii://acme/status-guide and the /acme-summarize prompt")
	return nil
}

// register calls functionID with payload until it succeeds, backing off
// from initialBackoff doubling to maxBackoff, until ctx is done. Errors
// that retrying cannot fix (the skills worker rejected the payload) end
// the loop at once.
func register(ctx context.Context, c *iii.Client, log *zap.Logger, functionID string, payload any) error {
	delay := initialBackoff
	for attempt := 1; ; attempt++ {
		callCtx, cancel := context.WithTimeout(ctx, attemptTimeout)
		_, err := c.Call(callCtx, functionID, payload)
		cancel()
		switch {
		case err == nil:
			return nil
		case !retryable(err):
			return fmt.Errorf("%s rejected the registration: %w", functionID, err)
		case ctx.Err() != nil:
			return fmt.Errorf("%s: gave up after %d attempts: %w", functionID, attempt, err)
		}
		log.Info("skills worker not ready; retrying",
			zap.String("function", functionID), zap.Int("attempt", attempt),
			zap.Duration("retry_in", delay), zap.Error(err))
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s: gave up after %d attempts: %w", functionID, attempt, err)
		case <-time.After(delay):
		}
		delay = min(delay*2, maxBackoff)
	}
}

// retryable reports whether a failed registration may succeed later: the
// engine is unreachable, skills::register is not registered yet
// (function_not_found), the call timed out, or state was unavailable. A
// payload the skills worker rejected (invalid_argument, forbidden) will be
// rejected again.
func retryable(err error) bool {
	var ie *iii.Error
	if errors.As(err, &ie) {
		switch ie.Code {
		case iii.CodeInvalidArgument, "forbidden":
			return false
		}
	}
	return true
}
