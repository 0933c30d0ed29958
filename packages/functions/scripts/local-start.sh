#!/usr/bin/env bash
# A local start of the shared answer store and two instances, as a team would run them: PostgreSQL
# in a temporary folder (Debian's postgresql package: initdb, pg_ctl), and two enrich-functions on
# ports 8081 and 8082 sharing it, each with the embedded sandbox (no key, nothing billed). It prints
# the callers' token and waits; Ctrl-C stops everything and removes the folder.
#
#   bash packages/functions/scripts/local-start.sh
#
# FUNCTIONS_PORTS="9001 9002" changes the ports; PG_BIN the folder of PostgreSQL's programs;
# ENRICH_FUNCTIONS_TOKEN the token (a random one by default). Without --sandbox (edit the two
# lines below), set ENRICH_API_KEY and the instances buy from the real service.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
server="$here/dist/enrich-functions.mjs"
if [ ! -f "$server" ]; then
  echo "No $server: run pnpm --filter @enrich/functions build first." >&2
  exit 1
fi
pg_bin="${PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)}"
if [ -z "$pg_bin" ] || [ ! -x "$pg_bin/pg_ctl" ]; then
  echo "PostgreSQL is not installed: apt-get install -y postgresql (or set PG_BIN)." >&2
  exit 1
fi
read -r -a ports <<< "${FUNCTIONS_PORTS:-8081 8082}"
token="${ENRICH_FUNCTIONS_TOKEN:-$(node -e "process.stdout.write(require('node:crypto').randomBytes(24).toString('hex'))")}"

dir="$(mktemp -d "${TMPDIR:-/tmp}/enrich-local-XXXXXX")"
# PostgreSQL refuses to run as root: then its programs run as the postgres user, who owns the folder.
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
[ "$(id -u)" = 0 ] && chown postgres: "$dir"
pg_port="$(node -e "const s=require('node:net').createServer().listen(0,'127.0.0.1',()=>{process.stdout.write(String(s.address().port));s.close()})")"

pids=()
stop() {
  trap - EXIT INT TERM
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait "${pids[@]}" 2>/dev/null || true
  as_pg "$pg_bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true
  rm -rf "$dir"
}
trap stop EXIT INT TERM

# Local connections only (127.0.0.1 and the folder's socket), so no password is needed.
as_pg "$pg_bin/initdb" -D "$dir/data" -U enrich --auth=trust --encoding=UTF8 --locale=C >/dev/null
as_pg "$pg_bin/pg_ctl" -D "$dir/data" -l "$dir/postgres.log" -w \
  -o "-p $pg_port -k $dir -c listen_addresses=127.0.0.1" start >/dev/null
as_pg "$pg_bin/createdb" -h 127.0.0.1 -p "$pg_port" -U enrich enrich
store="postgres://enrich@127.0.0.1:$pg_port/enrich"
echo "PostgreSQL: $store (in $dir, removed at the end)"

for port in "${ports[@]}"; do
  ENRICH_FUNCTIONS_TOKEN="$token" ENRICH_CACHE_DIR="$dir/cache-$port" ENRICH_LEDGER="$dir/ledger-$port.jsonl" \
    node "$server" --sandbox --host 127.0.0.1 --port "$port" --store "$store" &
  pids+=("$!")
done
echo "Callers' token: export TOKEN=$token"
wait "${pids[@]}"
