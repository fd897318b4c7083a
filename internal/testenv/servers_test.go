package testenv

import (
	"context"
	"testing"
)

// TestPrivatePostgresSettings: a private cluster starts with the settings
// it is given (what the shared server must never be made to take).
func TestPrivatePostgresSettings(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server")
	}
	s := PrivatePostgres(t, "shared_preload_libraries=pg_stat_statements", "work_mem=7MB")
	c := s.Conn(t, "")
	defer c.Close()
	var v string
	if err := c.QueryRow(context.Background(), "SHOW shared_preload_libraries", nil, &v); err != nil || v != "pg_stat_statements" {
		t.Errorf("shared_preload_libraries = %q, %v", v, err)
	}
	if err := c.QueryRow(context.Background(), "SHOW work_mem", nil, &v); err != nil || v != "7MB" {
		t.Errorf("work_mem = %q, %v", v, err)
	}
}
