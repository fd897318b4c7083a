package sqltext

import "testing"

func TestReserved(t *testing.T) {
	if !Reserved("order") || !Reserved("User") || Reserved("orders") {
		t.Error("Reserved: order and User are reserved, orders is not")
	}
	if got := ReservedPart("app.user"); got != "user" {
		t.Errorf("ReservedPart(app.user) = %q, want user", got)
	}
	if got := ReservedPart("app.users"); got != "" {
		t.Errorf("ReservedPart(app.users) = %q, want none", got)
	}
}
