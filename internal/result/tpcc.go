package result

// TPCC is what a TPC-C run reports beyond the generic summary (TPC-C 5.11,
// clause 5.4 and the checks of 5.2.3 and 5.2.5.3), for the whole run and for
// each instance.
type TPCC struct {
	Warehouses int `json:"warehouses"` // per instance (--warehouses)
	// Terminals is the number of virtual users (each bound to a home warehouse).
	Terminals  int     `json:"terminals"`
	ThinkScale float64 `json:"think_scale"`
	// TpmC is New-Order transactions completed per minute of the measured
	// window, the intentionally rolled-back ones included (clause 5.4.1).
	TpmC float64 `json:"tpmc"`
	// NOPM is committed New-Orders per minute (rolled-back ones excluded), the
	// figure HammerDB reports from d_next_o_id.
	NOPM float64 `json:"nopm"`
	// TPM is all transactions per minute.
	TPM float64 `json:"tpm"`
	// CeilingTpmC is the tpmC the terminals would reach with zero response
	// time at this think scale and mix: 60 × terminals × New-Order share /
	// mean (keying + think) time. With the spec's times and 10 terminals per
	// warehouse it is 12.86 × warehouses. Zero (absent) when there is no
	// keying or think time (--think-scale 0) or in an open-loop run.
	CeilingTpmC float64 `json:"ceiling_tpmc,omitempty"`
	// EfficiencyPct is TpmC / CeilingTpmC in percent.
	EfficiencyPct float64 `json:"efficiency_pct,omitempty"`
	// Mix is the achieved share of each transaction type, with the spec's
	// minimum where it sets one (clause 5.2.3); ok allows a shortfall of two
	// transactions per terminal, the granularity of the dealing.
	Mix []TPCCMix `json:"mix"`
	// Shares of special cases, in percent of their transaction type.
	RollbackPct          float64 `json:"rollback_pct"`             // New-Orders rolled back (spec: 1 %)
	RemoteOrderLinePct   float64 `json:"remote_order_line_pct"`    // order lines supplied by another warehouse (spec: 1 % when W > 1)
	RemotePaymentPct     float64 `json:"remote_payment_pct"`       // Payments by a customer of another warehouse (spec: 15 % when W > 1)
	PaymentByNamePct     float64 `json:"payment_by_name_pct"`      // Payments selecting the customer by last name (spec: 60 %)
	OrderStatusByNamePct float64 `json:"order_status_by_name_pct"` // the same for Order-Status (spec: 60 %)
	// Limits are the 90th-percentile response-time limits of clause 5.2.5.3.
	Limits []TPCCLimit `json:"limits"`
	// Notes explain figures that need it (think scale 0, open loop, inline Delivery).
	Notes []string `json:"notes,omitempty"`
}

// TPCCMix is one transaction type's share of the mix.
type TPCCMix struct {
	Name   string  `json:"name"`
	Count  int64   `json:"count"`
	Pct    float64 `json:"pct"`
	MinPct float64 `json:"min_pct,omitempty"`
	OK     bool    `json:"ok"`
}

// TPCCLimit is one transaction type's 90th-percentile response time against
// the spec's limit.
type TPCCLimit struct {
	Name    string  `json:"name"`
	P90Ms   float64 `json:"p90_ms"`
	LimitMs float64 `json:"limit_ms"`
	OK      bool    `json:"ok"`
}
