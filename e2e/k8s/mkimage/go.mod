// The image builder of e2e/k8s/run.sh (never part of rightsize's own
// module): go-containerregistry writes the tarballs containerd imports.
module rightsize.e2e/k8s/mkimage

go 1.26.0

require github.com/google/go-containerregistry v0.22.1

require (
	github.com/klauspost/compress v1.19.2 // indirect
	github.com/opencontainers/go-digest v1.0.0 // indirect
	github.com/opencontainers/image-spec v1.1.1 // indirect
)
