package worker

import (
	"context"
	"fmt"
	"strings"

	"go.uber.org/zap"

	"github.com/iii-hq/skills-go/internal/iii"
)

// changeTrigger describes one of the two on-change trigger types, logging
// its subscribers as they come and go.
func changeTrigger(id, description string, log *zap.Logger) iii.TriggerType {
	log.Info("registered trigger type", zap.String("trigger_type", id))
	fields := func(s iii.Subscription) []zap.Field {
		return []zap.Field{zap.String("trigger_type", s.TriggerType), zap.String("id", s.ID), zap.String("function_id", s.FunctionID)}
	}
	return iii.TriggerType{
		ID:          id,
		Description: description,
		OnRegister: func(_ context.Context, s iii.Subscription) error {
			log.Info("trigger subscription registered", fields(s)...)
			return nil
		},
		OnUnregister: func(_ context.Context, s iii.Subscription) {
			log.Info("trigger subscription unregistered", fields(s)...)
		},
	}
}

// describeFunctions counts functions by id prefix for the boot log, in
// order of first appearance, as the reference worker's boot line does
// (ExampleNew_bootLine shows the worker's).
func describeFunctions(functions []iii.Function) string {
	var prefixes []string
	counts := map[string]int{}
	for _, f := range functions {
		prefix, _, _ := strings.Cut(f.ID, "::")
		if counts[prefix] == 0 {
			prefixes = append(prefixes, prefix)
		}
		counts[prefix]++
	}
	parts := make([]string, len(prefixes))
	for i, p := range prefixes {
		parts[i] = fmt.Sprintf("%d %s::*", counts[p], p)
	}
	switch len(parts) {
	case 0:
		return "no functions"
	case 1:
		return parts[0] + " functions"
	default:
		return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1] + " functions"
	}
}
