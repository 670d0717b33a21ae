#!/usr/bin/env bash
# The tools the cluster tests and `npm run cluster` need besides node: PostgreSQL 15 (initdb, pg_ctl, postgres),
# pg_auto_failover (pg_autoctl: the monitor and the keepers that promote a synchronous standby), HAProxy in front
# of the nodes. PostgreSQL refuses to run as root, so as root the servers run as the unprivileged `postgres` user,
# which Debian's postgresql package creates (made here with useradd when it is missing). As root with apt-get
# (Debian, Ubuntu, CI here) what is missing is installed; anywhere else this stops with what to install.
# PG_BIN names another PostgreSQL 15 bin directory.
set -euo pipefail

pg_bin="${PG_BIN:-/usr/lib/postgresql/15/bin}"
missing=()
[ -x "$pg_bin/initdb" ] || missing+=(postgresql-15)
[ -x "$pg_bin/pg_autoctl" ] || command -v pg_autoctl >/dev/null 2>&1 || missing+=(postgresql-15-auto-failover pg-auto-failover-cli)
command -v haproxy >/dev/null 2>&1 || missing+=(haproxy)

if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "ensure-cluster-tools: installing ${missing[*]} with apt-get (the PostgreSQL log tests and npm run cluster need them)"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
  else
    echo "ensure-cluster-tools: the PostgreSQL log tests and npm run cluster need ${missing[*]}." >&2
    echo "Install it (e.g. sudo apt-get install ${missing[*]}) and run again." >&2
    exit 1
  fi
fi

# PgBouncer in front of the pg_auto_failover monitor saves the keepers' new connection per call (scripts/cluster.ts);
# the cluster runs without it (the keepers then connect directly), so failing to install it only warns.
if ! command -v pgbouncer >/dev/null 2>&1 && [ ! -x /usr/sbin/pgbouncer ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "ensure-cluster-tools: installing pgbouncer with apt-get (the keepers' connections to the monitor)"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends pgbouncer \
      || echo "ensure-cluster-tools: pgbouncer could not be installed; the keepers will connect to the monitor directly" >&2
  else
    echo "ensure-cluster-tools: pgbouncer is missing (optional: sudo apt-get install pgbouncer); the keepers will connect to the monitor directly" >&2
  fi
fi

if [ "$(id -u)" = 0 ] && ! id postgres >/dev/null 2>&1; then
  echo "ensure-cluster-tools: adding the system user postgres (PostgreSQL does not run as root)"
  useradd --system --user-group --home-dir /var/lib/postgresql --shell /usr/sbin/nologin postgres
fi
exit 0
