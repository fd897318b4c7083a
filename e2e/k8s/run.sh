#!/usr/bin/env bash
# A distributed rightsize run on a real single-node Kubernetes built on this
# machine, end to end (issue 34). Opt-in: not part of `go test ./...` nor of
# CI's default run. Run it as root from anywhere:
#
#   e2e/k8s/run.sh            # the run: prepare, Job of GENERATORS shards, merge
#   FAULT=1 e2e/k8s/run.sh    # the same, with one pod deleted mid-run
#
# What it does, the way Kubernetes' own hack/local-up-cluster.sh does it:
#  1. installs containerd, runc, the CNI plugins, etcd, socat and openssl from
#     Debian if missing;
#  2. builds kube-apiserver, kube-controller-manager, kube-scheduler, kubelet
#     and kubectl of K8S_VERSION from the Go module proxy (e2e/k8s/tools pins
#     them) into $CACHE (outside the repository; a second run reuses them),
#     and rightsize and two images (e2e/k8s/mkimage): rightsize's, as the
#     Dockerfile makes it but on an empty base, and the pod sandbox's pause;
#  3. makes certificates with openssl, starts etcd, the control plane, a
#     containerd of its own (its own root, state and socket, runc, the CNI
#     bridge cni0 on 10.244.0.0/24) and a kubelet, and waits for the node to
#     be Ready;
#  4. forwards 10.244.0.1:5432 (the bridge, which pods reach) to the host's
#     PostgreSQL on 127.0.0.1:5432 (socat), prepares TPC-C there once, puts
#     the target and a PostgreSQL history catalog in a Secret, applies
#     `rightsize k8s job tpcc --generators N`, waits for the Job, merges the
#     shards from the catalog and checks the merged count is their sum;
#  5. tears everything down at the end, also when interrupted.
#
# The last line it prints is the Job's state, the shards and the merged count.
#
# Env options:
#   K8S_VERSION=1.37.2  GENERATORS=3  WAREHOUSES=2  THREADS=6 (the run's, over the shards)
#   TIME=20s  WARMUP=5s  CPU=300m (per generator)  FAULT=0
#   WORK=/tmp/rightsize-k8s (state, removed at the end unless KEEP=1)
#   CACHE=$HOME/.cache/rightsize-e2e-k8s
set -euo pipefail

K8S_VERSION=${K8S_VERSION:-1.37.2}
GENERATORS=${GENERATORS:-3}
WAREHOUSES=${WAREHOUSES:-2}
THREADS=${THREADS:-6}
TIME=${TIME:-20s}
WARMUP=${WARMUP:-5s}
CPU=${CPU:-300m}
FAULT=${FAULT:-0}
WORK=${WORK:-/tmp/rightsize-k8s}
CACHE=${CACHE:-$HOME/.cache/rightsize-e2e-k8s}
KEEP=${KEEP:-0}

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
BIN=$CACHE/v$K8S_VERSION/bin
NODE=rs-e2e-node
BRIDGE_IP=10.244.0.1
POD_CIDR=10.244.0.0/24
SERVICE_CIDR=10.0.0.0/24
DB=rs_k8s
CATALOG=rs_k8s_catalog
START=$(date +%s)

log() { printf '== [%4ss] %s\n' "$(($(date +%s) - START))" "$*" >&2; }
die() { printf 'e2e/k8s: %s\n' "$*" >&2; exit 1; }

[ "$(id -u)" -eq 0 ] || die "run it as root: it starts containerd, a kubelet and a bridge"

# --- teardown -------------------------------------------------------------

PIDS=()
SUMMARY=""
cleanup() {
	local rc=$?
	set +e
	log "tearing down"
	if [ -x "$BIN/kubectl" ] && [ -f "$WORK/admin.kubeconfig" ]; then
		"$BIN/kubectl" --kubeconfig "$WORK/admin.kubeconfig" delete job --all --wait=false >/dev/null 2>&1
	fi
	# The kubelet first (it would restart the pods), then containerd's
	# shims and containers, then the control plane.
	for ((i = ${#PIDS[@]} - 1; i >= 0; i--)); do kill "${PIDS[i]}" 2>/dev/null; done
	sleep 2
	pkill -f "containerd-shim-runc-v2 -namespace k8s.io -address $WORK/" 2>/dev/null
	for ((i = ${#PIDS[@]} - 1; i >= 0; i--)); do kill -9 "${PIDS[i]}" 2>/dev/null; done
	# The mounts the kubelet and containerd left under WORK, deepest first.
	if [ -d "$WORK" ]; then
		awk -v w="$WORK" '$2 ~ "^"w {print $2}' /proc/mounts | sort -r | while read -r m; do umount -l "$m" 2>/dev/null; done
	fi
	ip link del cni0 2>/dev/null
	# The kubelet's cgroups (cgroupfs: /kubepods in each hierarchy).
	for d in /sys/fs/cgroup/*/kubepods; do
		[ -d "$d" ] && find "$d" -depth -type d -exec rmdir {} \; 2>/dev/null
	done
	if [ "$KEEP" != 1 ]; then rm -rf "$WORK"; fi
	if [ -n "${PGCLI:-}" ]; then
		$PGCLI -qc "DROP DATABASE IF EXISTS $DB" -c "DROP DATABASE IF EXISTS $CATALOG" >/dev/null 2>&1
	fi
	log "done"
	[ -n "$SUMMARY" ] && echo "$SUMMARY" # the last line
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- 1. packages ----------------------------------------------------------

need=()
for p in containerd:containerd runc:runc etcd:etcd-server socat:socat openssl:openssl psql:postgresql-client; do
	command -v "${p%%:*}" >/dev/null 2>&1 || need+=("${p#*:}")
done
[ -x /usr/lib/cni/bridge ] || need+=(containernetworking-plugins)
if [ ${#need[@]} -gt 0 ]; then
	log "installing ${need[*]}"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${need[@]}" >/dev/null
fi
PGCLI="psql -h 127.0.0.1 -U postgres -d postgres -v ON_ERROR_STOP=1"
pg_isready -q -h 127.0.0.1 -p 5432 || die "PostgreSQL is not accepting connections on 127.0.0.1:5432"

# --- 2. binaries and images -----------------------------------------------

rm -rf "$WORK" # a kept run's state (KEEP=1) is not this run's
mkdir -p "$BIN" "$WORK"
cmds=(kube-apiserver kube-controller-manager kube-scheduler kubelet kubectl)
missing=()
for c in "${cmds[@]}"; do [ -x "$BIN/$c" ] || missing+=("k8s.io/kubernetes/cmd/$c"); done
if [ ${#missing[@]} -gt 0 ]; then
	log "building Kubernetes v$K8S_VERSION (${#missing[@]} binaries) into $BIN: the first time takes a while"
	(cd "$HERE/tools" && go build -trimpath -ldflags="-s -w" -o "$BIN/" "${missing[@]}")
fi
log "building rightsize, the image builder and pause"
(cd "$REPO" && CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o "$WORK/rightsize" ./cmd/rightsize)
(cd "$HERE/mkimage" && go build -o "$WORK/mkimage" . && CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o "$WORK/pause" ./pause)
RS=$WORK/rightsize
"$WORK/mkimage" -o "$WORK/pause.tar" -tag rightsize.local/pause:e2e -entrypoint /pause -file "$WORK/pause:/pause:0755"
"$WORK/mkimage" -o "$WORK/rightsize.tar" -tag rightsize.local/rightsize:e2e -user 65532:65532 \
	-entrypoint /usr/local/bin/rightsize -file "$RS:/usr/local/bin/rightsize:0755" \
	-file /etc/ssl/certs/ca-certificates.crt:/etc/ssl/certs/ca-certificates.crt:0644

# --- 3. the cluster -------------------------------------------------------

log "certificates"
PKI=$WORK/pki
mkdir -p "$PKI"
(
	cd "$PKI"
	openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.crt -days 2 -subj /CN=rightsize-e2e-ca 2>/dev/null
	cert() { # cert NAME SUBJECT [SANS]
		openssl req -newkey rsa:2048 -nodes -keyout "$1.key" -out "$1.csr" -subj "$2" 2>/dev/null
		local ext=$1.ext
		: >"$ext"
		[ -n "${3:-}" ] && echo "subjectAltName=$3" >"$ext"
		openssl x509 -req -in "$1.csr" -CA ca.crt -CAkey ca.key -CAcreateserial -out "$1.crt" -days 2 -extfile "$ext" 2>/dev/null
	}
	cert apiserver /CN=kube-apiserver "IP:127.0.0.1,IP:10.0.0.1,IP:$BRIDGE_IP,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:localhost"
	cert admin "/O=system:masters/CN=admin"
	cert node "/O=system:nodes/CN=system:node:$NODE"
	cert kubelet-serving "/CN=$NODE" "IP:127.0.0.1,IP:$BRIDGE_IP,DNS:$NODE"
	openssl genrsa -out sa.key 2048 2>/dev/null
	openssl rsa -in sa.key -pubout -out sa.pub 2>/dev/null
)
kubeconfig() { # kubeconfig FILE CERT
	cat >"$1" <<EOF
apiVersion: v1
kind: Config
clusters: [{name: e2e, cluster: {server: "https://127.0.0.1:6443", certificate-authority: "$PKI/ca.crt"}}]
users: [{name: u, user: {client-certificate: "$PKI/$2.crt", client-key: "$PKI/$2.key"}}]
contexts: [{name: e2e, context: {cluster: e2e, user: u, namespace: default}}]
current-context: e2e
EOF
}
kubeconfig "$WORK/admin.kubeconfig" admin
kubeconfig "$WORK/node.kubeconfig" node
KC=("$BIN/kubectl" --kubeconfig "$WORK/admin.kubeconfig")

bg() { # bg NAME COMMAND...: starts a daemon, its log in WORK/NAME.log
	"${@:2}" >"$WORK/$1.log" 2>&1 &
	PIDS+=($!)
	disown $! # killed at the end: no job notice from bash
}
waitfor() { # waitfor WHAT SECONDS COMMAND...
	local what=$1 n=$2
	shift 2
	for ((i = 0; i < n; i++)); do "$@" >/dev/null 2>&1 && return 0; sleep 1; done
	die "$what: not ready after ${n}s (logs in $WORK; KEEP=1 keeps them)"
}

# The pods' bridge first: the API server advertises its address (it may
# not advertise a loopback one), and the PostgreSQL forwarder binds it.
ip link add cni0 type bridge 2>/dev/null || true
ip addr add "$BRIDGE_IP/24" dev cni0 2>/dev/null || true
ip link set cni0 up

log "etcd"
bg etcd etcd --name e2e --data-dir "$WORK/etcd" --listen-client-urls http://127.0.0.1:2379 \
	--advertise-client-urls http://127.0.0.1:2379 --listen-peer-urls http://127.0.0.1:2380 \
	--initial-advertise-peer-urls http://127.0.0.1:2380 --initial-cluster e2e=http://127.0.0.1:2380
waitfor etcd 30 curl -fsS http://127.0.0.1:2379/health

log "kube-apiserver"
bg apiserver "$BIN/kube-apiserver" --etcd-servers http://127.0.0.1:2379 --bind-address 127.0.0.1 --secure-port 6443 \
	--advertise-address "$BRIDGE_IP" --service-cluster-ip-range "$SERVICE_CIDR" \
	--client-ca-file "$PKI/ca.crt" --tls-cert-file "$PKI/apiserver.crt" --tls-private-key-file "$PKI/apiserver.key" \
	--kubelet-client-certificate "$PKI/admin.crt" --kubelet-client-key "$PKI/admin.key" --kubelet-certificate-authority "$PKI/ca.crt" \
	--service-account-key-file "$PKI/sa.pub" --service-account-signing-key-file "$PKI/sa.key" \
	--service-account-issuer https://kubernetes.default.svc --authorization-mode Node,RBAC \
	--enable-admission-plugins NodeRestriction --kubelet-preferred-address-types InternalIP
waitfor kube-apiserver 90 "${KC[@]}" get --raw /readyz

log "kube-controller-manager and kube-scheduler"
bg controller-manager "$BIN/kube-controller-manager" --kubeconfig "$WORK/admin.kubeconfig" \
	--service-account-private-key-file "$PKI/sa.key" --root-ca-file "$PKI/ca.crt" \
	--use-service-account-credentials --leader-elect=false --bind-address 127.0.0.1
bg scheduler "$BIN/kube-scheduler" --kubeconfig "$WORK/admin.kubeconfig" --leader-elect=false --bind-address 127.0.0.1

log "containerd"
mkdir -p "$WORK/cni/net.d" "$WORK/containerd"
cat >"$WORK/cni/net.d/10-bridge.conflist" <<EOF
{"cniVersion": "1.0.0", "name": "e2e", "plugins": [
  {"type": "bridge", "bridge": "cni0", "isGateway": true, "ipMasq": false,
   "ipam": {"type": "host-local", "ranges": [[{"subnet": "$POD_CIDR", "gateway": "$BRIDGE_IP"}]], "routes": [{"dst": "0.0.0.0/0"}]}},
  {"type": "loopback"}]}
EOF
cat >"$WORK/containerd/config.toml" <<EOF
version = 2
root = "$WORK/containerd/root"
state = "$WORK/containerd/state"
[grpc]
  address = "$WORK/containerd/containerd.sock"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "rightsize.local/pause:e2e"
  # This machine's root may not lower an OOM score (runc's nsexec: "failed
  # to update /proc/self/oom_score_adj: Permission denied" for the
  # sandbox's -998): keep each container's at least containerd's own.
  restrict_oom_score_adj = true
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$WORK/cni/net.d"
  [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
    runtime_type = "io.containerd.runc.v2"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
      BinaryName = "${RUNC:-/usr/sbin/runc}"
EOF
bg containerd containerd --config "$WORK/containerd/config.toml"
CTR=(ctr --address "$WORK/containerd/containerd.sock" -n k8s.io)
waitfor containerd 30 "${CTR[@]}" version
"${CTR[@]}" images import "$WORK/pause.tar" >/dev/null
"${CTR[@]}" images import "$WORK/rightsize.tar" >/dev/null

log "kubelet"
cat >"$WORK/kubelet.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
failCgroupV1: false
cgroupDriver: cgroupfs
containerRuntimeEndpoint: unix://$WORK/containerd/containerd.sock
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: false}
  x509: {clientCAFile: "$PKI/ca.crt"}
authorization: {mode: AlwaysAllow}
tlsCertFile: "$PKI/kubelet-serving.crt"
tlsPrivateKeyFile: "$PKI/kubelet-serving.key"
failSwapOn: false
podCIDR: "$POD_CIDR"
evictionHard: {memory.available: "100Mi", nodefs.available: "1%", imagefs.available: "1%"}
podLogsDir: "$WORK/pod-logs"
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
EOF
bg kubelet "$BIN/kubelet" --config "$WORK/kubelet.yaml" --kubeconfig "$WORK/node.kubeconfig" \
	--hostname-override "$NODE" --node-ip "$BRIDGE_IP" --root-dir "$WORK/kubelet" --cert-dir "$WORK/kubelet-pki"
node_ready() { [ "$("${KC[@]}" get node "$NODE" -o 'jsonpath={.status.conditions[?(@.type=="Ready")].status}')" = True ]; }
waitfor "node $NODE" 120 node_ready
log "node $NODE is Ready ($("${KC[@]}" get node "$NODE" -o 'jsonpath={.status.nodeInfo.kubeletVersion}, {.status.nodeInfo.containerRuntimeVersion}'))"

# --- 4. the run -----------------------------------------------------------

log "forwarding $BRIDGE_IP:5432 to the host's PostgreSQL"
bg socat socat "TCP-LISTEN:5432,bind=$BRIDGE_IP,fork,reuseaddr" TCP:127.0.0.1:5432
$PGCLI -qc "DROP DATABASE IF EXISTS $DB" -c "DROP DATABASE IF EXISTS $CATALOG" -c "CREATE DATABASE $DB" -c "CREATE DATABASE $CATALOG"
HOST_TARGET="postgres://postgres@127.0.0.1:5432/$DB?sslmode=disable"
HOST_CATALOG="postgres://postgres@127.0.0.1:5432/$CATALOG?sslmode=disable"
log "prepare tpcc --warehouses $WAREHOUSES"
"$RS" prepare tpcc --warehouses "$WAREHOUSES" --target "$HOST_TARGET" >"$WORK/prepare.log" 2>&1 || { cat "$WORK/prepare.log" >&2; die "prepare failed"; }
"${KC[@]}" create secret generic rightsize \
	--from-literal=target="postgres://postgres@$BRIDGE_IP:5432/$DB?sslmode=disable" \
	--from-literal=history="postgres://postgres@$BRIDGE_IP:5432/$CATALOG?sslmode=disable" >/dev/null
RUN_ID=e2e-$(date +%Y%m%dT%H%M%S)
"$RS" k8s job tpcc --warehouses "$WAREHOUSES" --threads "$THREADS" --time "$TIME" --warmup "$WARMUP" \
	--generators "$GENERATORS" --secret rightsize --image rightsize.local/rightsize:e2e \
	--cpu "$CPU" --memory 256Mi --run-id "$RUN_ID" >"$WORK/job.yaml"
JOB=$(awk '/^kind: Job/{j=1} j && /^  name:/{print $2; exit}' "$WORK/job.yaml")
"${KC[@]}" apply -f "$WORK/job.yaml" >/dev/null
log "job $JOB applied: $GENERATORS generators, run $RUN_ID"
if [ "$FAULT" = 1 ]; then
	waitfor "a running pod" 120 sh -c "'$BIN/kubectl' --kubeconfig '$WORK/admin.kubeconfig' get pods -l job-name=$JOB --field-selector status.phase=Running -o name | grep -q ."
	sleep 15
	victim=$("${KC[@]}" get pods -l job-name="$JOB" --field-selector status.phase=Running -o name | head -1)
	log "FAULT: deleting $victim mid-run"
	"${KC[@]}" delete "$victim" --wait=false >/dev/null
fi
state=running
for ((i = 0; i < 600; i++)); do
	s=$("${KC[@]}" get job "$JOB" -o 'jsonpath={range .status.conditions[?(@.status=="True")]}{.type} {end}')
	case $s in *Complete*) state=complete; break ;; *Failed*) state=failed; break ;; esac
	sleep 1
done
"${KC[@]}" get pods -l job-name="$JOB" -o wide >"$WORK/pods.txt" 2>&1 || true
for p in $("${KC[@]}" get pods -l job-name="$JOB" -o name); do
	"${KC[@]}" logs "$p" >"$WORK/$(basename "$p").log" 2>&1 || true
done
log "job $JOB: $state"

log "merge"
merged=$WORK/merged.json
"$RS" merge --run "$RUN_ID" --history "$HOST_CATALOG" -o "$merged" --no-history >"$WORK/merge.log" 2>&1 || true
cat "$WORK/merge.log" >&2
count=-1 sum=-1 shards=0
if [ -s "$merged" ]; then
	count=$(jq -r '.summary.count' "$merged")
	shards=$(jq -r '.generators | length' "$merged")
	sum=$(jq -r '[.generators[].count] | add' "$merged" 2>/dev/null || echo -1)
fi
partial=$(jq -r '[.generators[]? | select(.partial)] | length' "$merged" 2>/dev/null || echo 0)
SUMMARY="k8s e2e: job $state; shards $shards of $GENERATORS ($partial partial); merged count $count (shards' sum $sum); $(($(date +%s) - START)) s"
[ "$state" = complete ] && [ "$count" = "$sum" ] && [ "$count" -gt 0 ]
