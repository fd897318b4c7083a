package dialect

import "testing"

func TestCutUserInfo(t *testing.T) {
	for raw, want := range map[string]bool{
		"postgres://u:pw@h:5432/db?sslmode=disable": false,
		"postgres://u:p%40ss@h/my%40db":             false,
		"postgresql:///db?host=/tmp":                false,
		"mysql://u@h":                               false,
		"postgres://u:12?x=pw@h/d":                  true,
		"postgres://u:12#pw@h/d":                    true,
		"mysql://u:12/pw@h/d":                       true,
		"postgres://h/d?application_name=a@b":       true, // must be %40
		"sqlite:a@b.db":                             false,
		"":                                          false,
	} {
		if got := CutUserInfo(raw); got != want {
			t.Errorf("CutUserInfo(%q) = %v, want %v", raw, got, want)
		}
	}
}

func TestScrub(t *testing.T) {
	const pw = `p@ss w'rd\`
	msg := "a " + pw + " b p%40ss+w%27rd%5C c p@ss%20w%27rd%5C d p@ss w\\'rd\\\\ e"
	if got, want := Scrub(msg, pw, ""), "a xxxxx b xxxxx c xxxxx d xxxxx e"; got != want {
		t.Errorf("Scrub = %q, want %q", got, want)
	}
}
