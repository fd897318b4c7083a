package datahome

import "testing"

func TestHistoryFile(t *testing.T) {
	for _, tc := range []struct {
		vars map[string]string
		want string
	}{
		{map[string]string{"XDG_DATA_HOME": "/d", "HOME": "/home/u"}, "/d/rightsize/history.db"},
		{map[string]string{"XDG_DATA_HOME": "relative", "HOME": "/home/u"}, "/home/u/.local/share/rightsize/history.db"},
		{map[string]string{"HOME": "/home/u"}, "/home/u/.local/share/rightsize/history.db"},
		{nil, ""},
	} {
		if got := HistoryFile(func(k string) string { return tc.vars[k] }); got != tc.want {
			t.Errorf("HistoryFile(%v) = %q, want %q", tc.vars, got, tc.want)
		}
	}
	if got := HistoryFile(nil); got != "" {
		t.Errorf("HistoryFile(nil) = %q", got)
	}
}
