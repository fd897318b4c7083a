package dialect

import "testing"

func TestHostKey(t *testing.T) {
	for _, tc := range []struct{ host, want string }{
		{"localhost", "loopback"},
		{"LOCALHOST.", "loopback"},
		{"db.localhost", "loopback"},
		{"127.0.0.1", "loopback"},
		{"127.1.2.3", "loopback"},
		{"::1", "loopback"},
		{"0:0:0:0:0:0:0:1", "loopback"},
		{"::ffff:127.0.0.1", "loopback"},
		{"10.0.0.5", "10.0.0.5"},
		{"::ffff:10.0.0.5", "10.0.0.5"},
		{"2001:DB8::1", "2001:db8::1"},
		{"DB1.Example.COM.", "db1.example.com"},
		{"localhostx", "localhostx"},
		{"", ""},
	} {
		if got := HostKey(tc.host); got != tc.want {
			t.Errorf("HostKey(%q) = %q, want %q", tc.host, got, tc.want)
		}
	}
}
