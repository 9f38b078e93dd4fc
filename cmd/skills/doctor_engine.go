package main

import (
	"context"
	"fmt"
	"time"

	"go.uber.org/zap"

	"github.com/iii-hq/skills-go/internal/buildinfo"
	"github.com/iii-hq/skills-go/internal/iii"
	"github.com/iii-hq/skills-go/internal/offered"
)

// doctorEngineTimeout bounds doctor's one look at an engine's functions.
const doctorEngineTimeout = 10 * time.Second

// engineFunctions is the function list of the engine at url, in namespace
// ns ("": the default one), for skills doctor --url to judge the files'
// requirements against (docs/decisions.md D85).
func engineFunctions(ctx context.Context, url, ns string) (offered.Snapshot, error) {
	engineURL, err := iii.CheckedURL(url)
	if err != nil {
		return offered.Snapshot{}, usagef("skills doctor: %v", err)
	}
	ctx, cancel := context.WithTimeout(ctx, doctorEngineTimeout)
	defer cancel()
	client := iii.New(iii.Options{URL: engineURL, Name: callerName(), Version: buildinfo.Version, Logger: zap.NewNop(),
		HandshakeTimeout: doctorEngineTimeout + time.Second, Namespace: ns})
	client.Start()
	defer client.Close()
	if err := client.WaitFirstAttempt(ctx); err != nil {
		return offered.Snapshot{}, fmt.Errorf("skills doctor: cannot reach the iii engine at %s to check the skills' requirements (is it running?): %w", engineURL, err)
	}
	have, err := client.Functions(ctx)
	if err != nil {
		return offered.Snapshot{}, fmt.Errorf("skills doctor: cannot list the functions of the iii engine at %s: %w", engineURL, err)
	}
	fns := offered.New()
	fns.Set(have)
	return fns.Snapshot(), nil
}
