package catalog

import (
	"fmt"
	"testing"
)

// Values kept between listings stay bounded: a churn of keys read once
// and never listed turns the generations over (docs/decisions.md D64);
// a listing larger than the minimum keeps, from the second on, every
// value it touched for the next.
func TestGenerationsStayBoundedWithoutListings(t *testing.T) {
	g := NewGenerations[string]()
	for i := range 5 * MinGeneration {
		g.Put(fmt.Sprintf("churn/s%06d", i), "value")
	}
	if n := g.Len(); n > 2*MinGeneration {
		t.Errorf("%d values kept after %d keys put once; want at most %d", n, 5*MinGeneration, 2*MinGeneration)
	}
	g.Turn()
	for range 3 {
		for i := range 3 * MinGeneration {
			g.Put(fmt.Sprintf("listed/s%06d", i), "value")
		}
		g.Turn()
	}
	if _, ok := g.Get("listed/s000000"); !ok {
		t.Errorf("a value of the last listing was forgotten")
	}
}

// What two listings in a row did not touch is forgotten; what either
// touched (a Get counts) is kept.
func TestGenerationsForgetWhatTwoListingsDidNotTouch(t *testing.T) {
	g := NewGenerations[int]()
	g.Put("read", 1)
	g.Put("dropped", 2)
	g.Turn()
	if v, ok := g.Get("read"); !ok || v != 1 {
		t.Fatalf("Get(read) after one listing = %d, %v; want 1, true", v, ok)
	}
	g.Turn()
	if _, ok := g.Get("dropped"); ok {
		t.Error("a value no listing touched for two listings is still kept")
	}
	if v, ok := g.Get("read"); !ok || v != 1 {
		t.Errorf("Get(read) after a listing that touched it = %d, %v; want 1, true", v, ok)
	}
}
