#!/usr/bin/env bash
# Run the commands of samples/ci/linksync.yml end to end against a local sandbox:
# start `linksync sandbox serve` on a free 127.0.0.1 port (state in memory), then
#   1. validate                       (the pull-request job)
#   2. plan --detailed-exitcode       -> 3: changes pending (markdown saved as the PR comment)
#   3. apply --yes --report ...       (the push-to-main job)
#   4. plan --detailed-exitcode       -> 0: nothing left to do
#   5. a hand edit in the workspace, then plan -> 3: drift, naming the field
#   6. export, then plan the export   -> 0: the export reads back unchanged
#   7. apply while another run holds the lock -> refused with exit code 2
#      (the workspace starts with one link made by hand, as a real one would)
# Usage: samples/ci/run-locally.sh [LINKS_DIR]   (default: samples/ci/links)
# Needs linksync on PATH (an activated virtualenv); PYTHON is that environment's python.
set -euo pipefail
PYTHON="${PYTHON:-python3}"

here="$(cd "$(dirname "$0")" && pwd)"
links="${1:-$here/links}"
work="$(mktemp -d)"
server_pid=""

cleanup() {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

step() { printf '\n== %s\n' "$*"; }

exec 3>&2  # messages of this script, even while a step's stderr goes to a file

expect_code() {  # expect_code WANT CMD...: run CMD, fail unless it exits with WANT
  local want="$1"; shift
  set +e
  "$@"
  local got=$?
  set -e
  if [ "$got" -ne "$want" ]; then
    echo "run-locally: expected exit code $want, got $got: $*" >&3
    exit 1
  fi
}

api() {  # api METHOD PATH [JSON]: one request to the sandbox, as a person would by hand
  "$PYTHON" - "$@" <<'PY'
import json, os, sys
import httpx
method, path = sys.argv[1], sys.argv[2]
body = json.loads(sys.argv[3]) if len(sys.argv) > 3 else None
r = httpx.request(
    method,
    os.environ["LINKSYNC_BASE_URL"] + path,
    json=body,
    headers={"Authorization": "Bearer " + os.environ["LINKSYNC_API_KEY"]},
)
r.raise_for_status()
PY
}

port="$("$PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')"
export LINKSYNC_BASE_URL="http://127.0.0.1:$port"
export LINKSYNC_API_KEY="sandbox-full-access-key"

step "sandbox serve on $LINKSYNC_BASE_URL"
linksync sandbox serve --host 127.0.0.1 --port "$port" --memory >"$work/server.log" 2>&1 &
server_pid=$!
"$PYTHON" - "$port" <<'PY'
import socket, sys, time
port = int(sys.argv[1])
deadline = time.monotonic() + 20
while time.monotonic() < deadline:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
        sys.exit(0)
    except OSError:
        time.sleep(0.05)
sys.exit("sandbox did not start listening within 20 s")
PY

cd "$work"

step "a workspace that already holds a link made by hand"
api POST /api/v1/links '{"slug": "welcome", "url": "https://example.com/welcome"}'

# JSON logs on stderr (--log-format json), as the workflow asks for, when this linksync
# has the flag; the check keeps the script usable with builds that do not have it yet.
logfmt=()
if linksync plan --help | grep -q -- "--log-format"; then logfmt=(--log-format json); fi

step "validate (pull request)"
linksync validate "$links"

step "plan --format markdown --detailed-exitcode (pull request): expect 3"
expect_code 3 linksync plan "$links" --format markdown --detailed-exitcode "${logfmt[@]}" \
  >plan.md 2>plan.log
cat plan.md
if [ "${#logfmt[@]}" -gt 0 ]; then grep -q '"event": "run_end"' plan.log; fi

step "apply --yes --report (push to main)"
linksync apply "$links" --yes "${logfmt[@]}" \
  --report out/linksync-report.xlsx --report out/linksync-report.json 2>apply.log
test -s out/linksync-report.xlsx
test -s out/linksync-report.json

step "plan again: expect 0 (nothing to do)"
expect_code 0 linksync plan "$links" --detailed-exitcode

step "hand edit in the workspace, then plan: expect 3 (drift on url)"
api PATCH /api/v1/links/spring-sale '{"url": "https://example.com/edited-by-hand"}'
expect_code 3 linksync plan "$links" --format markdown --detailed-exitcode >drift.md
cat drift.md
grep -q "lnk.test/spring-sale | update | planned | url |" drift.md
linksync apply "$links" --yes >/dev/null 2>&1

step "export, then plan the export: expect 0"
linksync schema links.schema.json
linksync export --format yaml --split-by domain exported/
expect_code 0 linksync plan exported/ --detailed-exitcode

step "a run holding the lock: apply --lock on the same file exits 2"
"$PYTHON" -c '
import sys, time
from linksync.lock import acquire_lock
with acquire_lock(sys.argv[1], target="nightly run"):
    print("locked", flush=True)
    time.sleep(60)
' "$work/run.lock" >holder.out &
holder=$!
for _ in $(seq 100); do grep -q locked holder.out 2>/dev/null && break; sleep 0.05; done
expect_code 2 linksync apply "$links" --yes --lock "$work/run.lock" 2>lock.err
cat lock.err
grep -q "nightly run" lock.err
kill "$holder"; wait "$holder" 2>/dev/null || true

step "all CI commands ran against the sandbox"
