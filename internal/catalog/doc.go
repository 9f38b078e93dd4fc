// Package catalog keeps the worker's in-memory view of the state scopes it
// serves (docs/decisions.md D17, D18): for every key of a scope, listed in
// key order, a summary (what listings need) and, while a byte budget
// allows, the body (what a read needs). It is loaded with a snapshot on
// each connection (one state::list, or pages of state::list_entries where
// the engine has them) and kept current by the worker's own writes and by
// the engine's `state` trigger. While a scope is not loaded (before the
// first load on a connection, or while the engine has no `state` trigger
// type, which the catalog waits for) it says so, and readers go to the
// engine instead: the catalog is never stale by more than one event.
//
// On the scopes stands the content view (view.go): the one place that
// merges the stored skills with the files of the globs and roots, which
// every listing reads (docs/data-path.md#the-content-view). The catalog
// owns state::* for its scopes: the stored rows' shapes and decoders
// (rows.go), and every state::get, set, delete and list of them
// (store.go, stored.go); the registry writes and reads rows through the
// view.
package catalog
