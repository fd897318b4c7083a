package metrics

import (
	"context"
	"io"
	"log"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// shutdownTimeout bounds how long Serve waits for scrapes in flight once its
// context ends.
const shutdownTimeout = 2 * time.Second

const index = `<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>rightsize metrics</title></head>
<body><h1>rightsize</h1><p><a href="/metrics">/metrics</a>: live figures of the run in the Prometheus text format.</p></body></html>
`

// Serve listens on addr (host:port, e.g. ":9464", or "127.0.0.1:0" for any
// free port) and serves the registry at /metrics and a short page linking to
// it at /; every other path is 404. It returns the address actually bound
// once the listener is open, and serves in the background until ctx ends,
// then shuts the server down (waiting up to 2 s for scrapes in flight). A
// listen error (address in use, bad address, no permission) is returned as
// the *net.OpError it is ("listen tcp ADDR: ..."), and nothing is served.
func (e *Exporter) Serve(ctx context.Context, addr string) (bound string, err error) {
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return "", err // a *net.OpError: "listen tcp ADDR: ..."
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.InstrumentMetricHandler(e.reg,
		promhttp.HandlerFor(e.reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})))
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = io.WriteString(w, index)
	})
	srv := &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 5 * time.Second,
		// A metrics endpoint has no one to tell about a client's broken
		// connection; the standard logger would write to stderr.
		ErrorLog: log.New(io.Discard, "", 0),
	}
	// Serve closes ln when it returns: on Shutdown, or on an accept error,
	// after which the run goes on without metrics.
	go func() { _ = srv.Serve(ln) }()
	e.stopped = make(chan struct{})
	go func() {
		defer close(e.stopped)
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
		defer cancel()
		if srv.Shutdown(sctx) != nil {
			srv.Close()
		}
	}()
	return ln.Addr().String(), nil
}

// Stopped returns a channel closed once the server that Serve started has
// shut down after its context ended (nil before Serve).
func (e *Exporter) Stopped() <-chan struct{} { return e.stopped }
