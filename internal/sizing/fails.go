package sizing

// Fails reports whether a VM of the plan breaks a rule, or the right-sized
// VM does, or there is none because the target rate is past a knee CPU did
// not cause (Sizing.NotCPU), or no vCPU count meets its objective
// (Sizing.Objective), or its verification failed (Sizing.Verified), or
// the consolidation what-if finds the host
// oversubscribed:
// rightsize plan exits 1 then, so that scripts can gate on it.
func (r *Report) Fails() bool {
	for _, p := range r.VMs {
		if p.Worst() == Fail {
			return true
		}
	}
	if r.Sizing != nil && (r.Sizing.Plan.Worst() == Fail || r.Sizing.NotCPU != nil || r.Sizing.Objective != nil && r.Sizing.Objective.VCPU == 0 || r.Sizing.Verified != nil && !r.Sizing.Verified.Pass) {
		return true
	}
	if r.Consolidation != nil {
		for _, c := range r.Consolidation.Checks {
			if c.Status == Fail {
				return true
			}
		}
	}
	return false
}
