package offered

import "testing"

func TestUnknownOffersEverythingAndSetVersionsChanges(t *testing.T) {
	f := New()
	s0 := f.Snapshot()
	if s0.Known || !s0.Has("acme::status") {
		t.Fatalf("before a list: %+v offers acme::status = %v", s0, s0.Has("acme::status"))
	}
	ch := f.Changed()
	if !f.Set(map[string]bool{"acme::status": true, "acme::gone": false}) {
		t.Fatal("first Set reported no change")
	}
	select {
	case <-ch:
	default:
		t.Fatal("Changed not closed by a change")
	}
	s1 := f.Snapshot()
	if !s1.Known || !s1.Has("acme::status") || s1.Has("acme::gone") || s1.Version == s0.Version || s1.Len() != 1 {
		t.Fatalf("after Set: %+v", s1)
	}
	ch = f.Changed()
	if f.Set(map[string]bool{"acme::status": true}) {
		t.Fatal("the same set reported a change")
	}
	select {
	case <-ch:
		t.Fatal("Changed closed without a change")
	default:
	}
	if f.Snapshot().Version != s1.Version {
		t.Fatal("version moved without a change")
	}
	if !f.Set(map[string]bool{}) || f.Snapshot().Has("acme::status") {
		t.Fatal("an emptied list still offers acme::status")
	}
	if !f.Unknown() || !f.Snapshot().Has("anything") || f.Unknown() {
		t.Fatal("Unknown did not forget the list once")
	}
}

func TestNilFunctionsIsUnknown(t *testing.T) {
	var f *Functions
	if s := f.Snapshot(); s.Known || !s.Has("x") || f.Changed() != nil {
		t.Fatal("a nil list must know nothing and never change")
	}
}
