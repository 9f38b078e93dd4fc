package contract

// TimestampLayout is the layout of every time the registry answers with
// (docs/decisions.md D11, D87): RFC 3339 in UTC with a "+00:00" offset and
// exactly nine fractional digits, as the Rust worker writes registered_at.
// Times the registry reads (skills::usage's since) may be any RFC 3339
// time.
const TimestampLayout = "2006-01-02T15:04:05.000000000+00:00"
