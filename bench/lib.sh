# shellcheck shell=bash
# Shared by the bench/*.sh comparison scripts: logging, package installation
# and the client tools for the servers in $SERVERS. Source it; it defines
# log, die, ensure_pkg, ensure_clients and has_tool, and sets MYSQL_CLI.

log() { printf '== %s\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

APT_UPDATED=0
ensure_pkg() { # ensure_pkg COMMAND PACKAGE
  command -v "$1" >/dev/null 2>&1 && return 0
  local sudo=()
  [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  log "installing $2 (for $1)"
  if [ "$APT_UPDATED" -eq 0 ]; then
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
    APT_UPDATED=1
  fi
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$2"
  command -v "$1" >/dev/null 2>&1 || die "$1 still missing after installing $2"
}

# ensure_clients installs jq, GNU time and the SQL clients of $SERVERS.
ensure_clients() {
  ensure_pkg jq jq
  ensure_pkg /usr/bin/time time
  local s
  for s in $SERVERS; do
    case $s in
      postgres) ensure_pkg psql postgresql-client ;;
      mysql) command -v mariadb >/dev/null 2>&1 || ensure_pkg mysql mariadb-client ;;
      *) die "unknown server '$s' (want postgres and/or mysql)" ;;
    esac
  done
  # shellcheck disable=SC2034 # used by the scripts that source this file
  MYSQL_CLI=$(command -v mariadb || command -v mysql || true)
}

has_tool() { case " $TOOLS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
