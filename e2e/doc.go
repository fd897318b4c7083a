// Package e2e holds the tests that need what the rightsize binary does not
// link: the Kubernetes API's types (k8sjob: every manifest decodes strictly
// into batch/v1 and v1 and is, byte for byte, what the API's client
// library writes) and a browser driver (browser: the HTML reports in
// headless Chromium). It is a module of its own (go.mod, with a replace
// directive to the main module in ../), so that its dependencies stay out
// of the main module's go.mod and out of the binary; .ci/run runs its
// tests (cd e2e && go test ./...).
//
// e2e/k8s is apart: an opt-in run of a Job on a single-node Kubernetes
// (run.sh), with modules of its own for its tools.
package e2e
