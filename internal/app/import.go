package app

import (
	"github.com/rightsize/rightsize/internal/app/hvimport"
	"github.com/rightsize/rightsize/internal/hypervisor"
)

// The import use case (package hvimport).
var (
	// ReadHypervisor reads a hypervisor export (hypervisor.ReadFile).
	ReadHypervisor = hypervisor.ReadFile
	// SummarizeSeries writes the series' span and its means
	// (hvimport.SummarizeSeries).
	SummarizeSeries = hvimport.SummarizeSeries
	// ImportInto aligns the series to a sweep's steps or a run and
	// rewrites the file (hvimport.ImportInto).
	ImportInto = hvimport.ImportInto
)
