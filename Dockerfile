# syntax=docker/dockerfile:1

# rightsize in a container image, for distributed runs on Kubernetes
# (docs/kubernetes.md): a static binary (CGO_ENABLED=0; the SQLite driver is
# pure Go) on distroless/static, which holds CA certificates and tzdata, no
# shell and no package manager, and runs as the nonroot user.
#
#   docker build -t registry.example.com/rightsize:1.0 .
#   docker buildx build --platform linux/amd64,linux/arm64 -t registry.example.com/rightsize:1.0 --push .
#
# Not built in CI here (no Docker engine on the machine this was written
# on); the static build itself is checked (docs/kubernetes.md).

# The Go of go.mod's go line or later (the official images do not fetch a
# newer toolchain: GOTOOLCHAIN=local).
ARG GO_VERSION=1.26

# The compiler runs on the build machine's platform and cross-compiles.
FROM --platform=$BUILDPLATFORM golang:${GO_VERSION} AS build
ARG TARGETOS TARGETARCH
WORKDIR /src
# The modules first: a layer that a change of the sources keeps.
COPY go.mod go.sum ./
RUN go mod download
# The context holds .git (see .dockerignore): go build records the commit,
# which 'rightsize --version' and every result carry.
COPY . .
RUN CGO_ENABLED=0 GOOS=$TARGETOS GOARCH=$TARGETARCH \
    go build -trimpath -ldflags="-s -w" -o /out/rightsize ./cmd/rightsize

FROM gcr.io/distroless/static:nonroot
COPY --from=build /out/rightsize /usr/local/bin/rightsize
# Numeric, so that Kubernetes can check runAsNonRoot (the Job sets it): with
# a user name it refuses to start the container.
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/rightsize"]
