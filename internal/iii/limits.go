package iii

// SetMaxResultBytes replaces Options.MaxResultBytes for every result
// encoded from now on (0 restores the default): the worker applies a new
// max_response_bytes without a restart
// (docs/data-path.md#live-configuration). Safe for concurrent use.
func (c *Client) SetMaxResultBytes(n int) {
	if n <= 0 {
		n = DefaultMaxResultBytes
	}
	c.maxResult.Store(int64(n))
}

// maxResultBytes is the result budget in force.
func (c *Client) maxResultBytes() int { return int(c.maxResult.Load()) }
