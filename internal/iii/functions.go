package iii

import (
	"context"
	"errors"
)

// Functions lists the functions the engine offers in this client's
// namespace, internal ones included (engine::functions::list): the ids a
// skill's iii://fn links and declared requirements are checked against
// (docs/decisions.md D85). An engine with no such function answers an
// error for which CannotList is true.
func (c *Client) Functions(ctx context.Context) (map[string]bool, error) {
	return c.listed(ctx, "engine::functions::list", "functions", "function_id")
}

// CannotList reports whether err is the engine's answer that it has no
// engine::functions::list (an engine before it): nothing can be known of
// its functions, rather than a list that failed this time.
func CannotList(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == CodeFunctionNotFound
}
