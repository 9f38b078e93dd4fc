package worker

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/iii-hq/skills-go/internal/diagnostics"
	"github.com/iii-hq/skills-go/internal/iii"
	"github.com/iii-hq/skills-go/internal/search"

	"github.com/iii-hq/skills-go/internal/skillmd"
)

// caller is the part of the iii client the embedder uses.
type caller interface {
	Call(ctx context.Context, functionID string, data any) (json.RawMessage, error)
}

// embedder is search.embedder over the engine: the configured function is
// called with {"texts": [...]} and answers {"vectors": [[...], ...]}
// (docs/decisions.md D50). The search package checks the vectors; this
// checks the answer's shape.
type embedder struct {
	client   caller
	function string
}

// NewEmbedder is the embedder a worker configured with search.embedder
// uses: function called through client. Benchmarks build it too.
func NewEmbedder(client *iii.Client, function string) search.Embedder {
	return embedder{client: client, function: function}
}

// embedRequest is the embedder function's payload.
type embedRequest struct {
	Texts []string `json:"texts"`
}

// Embed calls the embedder function; the call ends with ctx.
func (e embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	raw, err := e.client.Call(ctx, e.function, embedRequest{Texts: texts})
	if err != nil {
		return nil, err
	}
	return decodeVectors(raw)
}

// decodeVectors reads an embedder's answer: an object whose vectors are
// lists of numbers.
func decodeVectors(raw json.RawMessage) ([][]float32, error) {
	var out struct {
		Vectors *[][]float32 `json:"vectors"`
	}
	if err := json.Unmarshal(raw, &out); err != nil || out.Vectors == nil {
		got, more := skillmd.CutRunes(string(raw), 80)
		if more {
			got += skillmd.Ellipsis
		}
		if len(raw) == 0 {
			got = "nothing"
		}
		return nil, fmt.Errorf("answered %s; want an object {\"vectors\": [[number, ...], ...]}, one vector per text", got)
	}
	return *out.Vectors, nil
}

// embedderRow is the embedder's status as skills::diagnostics reports it.
func embedderRow(st search.EmbedderStatus) *diagnostics.Embedder {
	row := &diagnostics.Embedder{Function: st.Function, State: st.State, Vectors: st.Vectors, Waiting: st.Waiting,
		Dimension: st.Dimension, LastError: st.LastError}
	if !st.LastErrorAt.IsZero() {
		row.LastErrorAt = st.LastErrorAt.UTC().Format(time.RFC3339Nano)
	}
	return row
}
