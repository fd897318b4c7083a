package stmtstats

import "testing"

// TestGrantees: the names a refusal's GRANT quotes, as the server takes them.
func TestGrantees(t *testing.T) {
	for in, want := range map[string]string{"app": "app", "App": `"App"`, `we"ird`: `"we""ird"`, "a-b": `"a-b"`} {
		if got := QuoteRole(in); got != want {
			t.Errorf("QuoteRole(%q) = %s, want %s", in, got, want)
		}
	}
	for in, want := range map[[2]string]string{{"app", "%"}: "'app'@'%'", {"o'b", "10.0.0.1"}: "'o''b'@'10.0.0.1'"} {
		if got := Account(in[0], in[1]); got != want {
			t.Errorf("Account(%q, %q) = %s, want %s", in[0], in[1], got, want)
		}
	}
	if !preloads("auto_explain, pg_stat_statements") || preloads("pg_stat_kcache") {
		t.Error("preloads reads shared_preload_libraries wrong")
	}
}
