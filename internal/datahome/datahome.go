package datahome

import "path/filepath"

// HistoryFile is the default history catalog's SQLite file:
// $XDG_DATA_HOME/rightsize/history.db when XDG_DATA_HOME is an absolute
// path (as the XDG spec requires), else
// ~/.local/share/rightsize/history.db; "" when neither is set (or getenv
// is nil).
func HistoryFile(getenv func(string) string) string {
	if getenv == nil {
		return ""
	}
	if d := getenv("XDG_DATA_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "rightsize", "history.db")
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".local", "share", "rightsize", "history.db")
	}
	return ""
}
