package mcpskills

import (
	"fmt"
	"testing"
)

// Digests kept by skills/get between listings stay bounded: a churn of
// ids read once and never listed turns the generations over (D64).
func TestDigestsStayBoundedWithoutListings(t *testing.T) {
	d := newMCPDigests()
	for i := range 5 * minDigests {
		d.keepSynth(fmt.Sprintf("churn/s%06d", i), "key", mcpSkillFile{})
	}
	if synth, _ := d.Len(); synth > 2*minDigests {
		t.Errorf("%d digests kept after %d ids read once; want at most %d", synth, 5*minDigests, 2*minDigests)
	}
	// Listings of more than minDigests skills: from the second on, each
	// keeps every digest for the next.
	d.rotate()
	for range 3 {
		for i := range 3 * minDigests {
			d.keepSynth(fmt.Sprintf("listed/s%06d", i), "key", mcpSkillFile{})
		}
		d.rotate()
	}
	if _, ok := d.synth("listed/s000000", "key"); !ok {
		t.Errorf("a digest of the last listing was forgotten")
	}
}
