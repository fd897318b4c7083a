package app

import "github.com/rightsize/rightsize/internal/app/capture"

// CaptureOptions are rightsize capture's (capture.CaptureOptions).
type CaptureOptions = capture.CaptureOptions

// Capture writes a server's statement statistics over a window as a
// workload file (capture.Capture).
var Capture = capture.Capture
