package result

// FileIO is what a fileio run reports beyond the generic summary: the seed
// studies' per-volume figures for one pattern at one read mix.
type FileIO struct {
	Pattern    string `json:"pattern"` // canonical "t1 o32 b16k"
	BlockBytes int64  `json:"block_bytes"`
	ReadPct    int    `json:"read_pct"`
	Random     bool   `json:"random"`
	Direct     bool   `json:"direct"`
	Engine     string `json:"engine"` // "io_uring" or "psync"
	// Read, Write and Total are per direction over the measured window, all
	// instances (volumes) added up.
	Read  IOFigures `json:"read"`
	Write IOFigures `json:"write"`
	Total IOFigures `json:"total"`
	// CPUPerIOUs is the rightsize process's CPU (user + sys) per I/O, to
	// compare with fio's usr_cpu/sys_cpu.
	CPUPerIOUs float64 `json:"cpu_per_io_us,omitempty"`
	// Derived holds the per-VM and per-GB figures (--vms, --capacity), per
	// volume: the totals divided by the number of volumes first.
	Derived *Derived `json:"derived,omitempty"`
}

// IOFigures are one direction's throughput and latency.
type IOFigures struct {
	Count   int64   `json:"count"`
	IOPS    float64 `json:"iops"`
	MBps    float64 `json:"mb_s"`  // 10^6 bytes per second
	MiBps   float64 `json:"mib_s"` // 2^20 bytes per second
	Latency Latency `json:"latency"`
}

// Derived are the seed's per-VM and per-GB figures of one volume.
type Derived struct {
	VMs        int     `json:"vms,omitempty"`
	CapacityGB float64 `json:"capacity_gb,omitempty"` // decimal GB
	IOPSPerVM  float64 `json:"iops_per_vm,omitempty"`
	MBpsPerVM  float64 `json:"mb_s_per_vm,omitempty"`
	IOPSPerGB  float64 `json:"iops_per_gb,omitempty"`
	MBpsPerGB  float64 `json:"mb_s_per_gb,omitempty"`
}
