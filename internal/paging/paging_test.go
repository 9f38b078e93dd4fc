package paging

import (
	"testing"
)

// A page ends with a cursor to the rest; the cursor is refused by
// another list, and once its entry has gone.
func TestCut(t *testing.T) {
	keys := []string{"a", "b", "c"}
	start, end, next, err := Cut("skills", keys, nil, 2)
	if err != nil || start != 0 || end != 2 || next != Cursor("skills", "b") {
		t.Fatalf("first page = %d, %d, %q, %v", start, end, next, err)
	}
	start, end, next, err = Cut("skills", keys, &next, 2)
	if err != nil || start != 2 || end != 3 || next != "" {
		t.Fatalf("last page = %d, %d, %q, %v", start, end, next, err)
	}
	other := Cursor("prompts", "a")
	if _, _, _, err := Cut("skills", keys, &other, 2); err == nil {
		t.Error("a cursor of another list was accepted")
	}
	stale := Cursor("skills", "gone")
	if _, _, _, err := Cut("skills", keys, &stale, 2); err == nil {
		t.Error("a stale cursor was accepted")
	}
	garbage := "not a cursor"
	if _, _, _, err := Cut("skills", keys, &garbage, 2); err == nil {
		t.Error("a cursor this worker never gave was accepted")
	}
}
