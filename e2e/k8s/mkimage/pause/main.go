// Command pause holds a pod's namespaces, as Kubernetes' pause image does:
// it waits for SIGINT or SIGTERM and exits 0, and reaps the children
// re-parented to it (it is the pod's PID 1 when the pod shares one PID
// namespace). e2e/k8s/run.sh builds it statically into the sandbox image
// its containerd uses, which no registry here can supply.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	sig := make(chan os.Signal, 4)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM, syscall.SIGCHLD)
	for s := range sig {
		if s == syscall.SIGCHLD {
			for {
				pid, err := syscall.Wait4(-1, nil, syscall.WNOHANG, nil)
				if pid <= 0 || err != nil {
					break
				}
			}
			continue
		}
		os.Exit(0)
	}
}
