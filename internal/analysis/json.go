package analysis

import (
	"encoding/json"
	"math"
)

// finite is a number for JSON: null when NaN or infinite (an unbounded peak,
// an interval that was not computed).
type finite float64

func (f finite) MarshalJSON() ([]byte, error) {
	if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
		return []byte("null"), nil
	}
	return json.Marshal(float64(f))
}

// MarshalJSON writes the fit with lower-case names, and null for values that
// are not finite (Peak is +Inf when throughput never turns down).
func (u USL) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Lambda     finite    `json:"lambda"`
		Sigma      finite    `json:"sigma"`
		Kappa      finite    `json:"kappa"`
		R2         finite    `json:"r2"`
		Peak       finite    `json:"peak"`
		PeakX      finite    `json:"peak_x"`
		SigmaCI    [2]finite `json:"sigma_ci"`
		KappaCI    [2]finite `json:"kappa_ci"`
		PeakCI     [2]finite `json:"peak_ci"`
		Retrograde bool      `json:"retrograde"`
		N          int       `json:"n"`
	}{
		finite(u.Lambda), finite(u.Sigma), finite(u.Kappa), finite(u.R2), finite(u.Peak), finite(u.PeakX),
		[2]finite{finite(u.SigmaCI[0]), finite(u.SigmaCI[1])}, [2]finite{finite(u.KappaCI[0]), finite(u.KappaCI[1])},
		[2]finite{finite(u.PeakCI[0]), finite(u.PeakCI[1])}, u.Retrograde, u.N,
	})
}
