#!/usr/bin/env bash
# Run the CI sample end to end on this machine, against a local sandbox: the steps of the
# GitHub Action (action.yml, through action/local.py) and the commands of
# samples/ci/linksync.yml. It starts `linksync sandbox serve` on a free 127.0.0.1 port
# (state in memory), then
#   1. the action, command validate     (offline, no key)
#   2. the action on a pull request     -> a plan with changes (has_changes=true)
#   3. the action on a push to main     -> apply (command auto), the report written
#   4. the action on a pull request     -> "No changes" (has_changes=false)
#   5. a hand edit in the workspace, then the nightly drift check: the action with
#      fail-on-changes exits 3, and plan --detailed-exitcode names the field
#   6. export (with its schema), then plan the export -> 0: it reads back unchanged
#   7. apply while another run holds the lock -> refused with exit code 2
#      (the workspace starts with one link made by hand, as a real one would)
# The pull-request comment needs GitHub: locally the comment step says it has nothing
# to post to (tests/action runs it against a fake GitHub API).
# Usage: samples/ci/run-locally.sh [LINKS_DIR]   (default: samples/ci/links)
# Needs linksync on PATH (an activated virtualenv); PYTHON is that environment's python.
set -euo pipefail
PYTHON="${PYTHON:-python3}"

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
links="$(cd "${1:-$here/links}" && pwd)"
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

action() {  # action EXPECTED_EXIT EVENT REF INPUT...: the action's steps, run locally
  local want="$1" event="$2" ref="$3"; shift 3
  local inputs=()
  for i in "$@"; do inputs+=(--input "$i"); done
  expect_code "$want" "$PYTHON" "$root/action/local.py" --event "$event" --ref "$ref" \
    --input version=preinstalled --input python-version= --input files="$links" \
    --input base-url="$LINKSYNC_BASE_URL" --input-env api-key=LINKSYNC_API_KEY \
    --input output-dir="$work/out" --outputs "$work/outputs.json" "${inputs[@]}"
}

output() {  # output NAME: one output of the last action run
  "$PYTHON" -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' \
    "$work/outputs.json" "$1"
}

expect_output() {  # expect_output NAME VALUE
  local got
  got="$(output "$1")"
  if [ "$got" != "$2" ]; then
    echo "run-locally: expected output $1=$2, got $got" >&3
    exit 1
  fi
}

step "the action: validate (offline, no key)"
action 0 pull_request refs/pull/1/merge command=validate
expect_output invalid 0

step "the action on a pull request: the plan (changes pending)"
action 0 pull_request refs/pull/1/merge
expect_output command plan
expect_output has_changes true
cat "$work/out/plan.md"

step "the action on a push to main: apply (command auto)"
action 0 push refs/heads/main
expect_output command apply
test -s "$work/out/report.json"
test -s "$work/out/report.md"

step "the action on a pull request again: no changes"
action 0 pull_request refs/pull/2/merge
expect_output has_changes false
grep -q "No changes" "$work/out/plan.md"

step "hand edit in the workspace, then the nightly drift check: expect 3 (drift on url)"
api PATCH /api/v1/links/spring-sale '{"url": "https://example.com/edited-by-hand"}'
action 3 schedule refs/heads/main command=plan fail-on-changes=true
expect_output updates 1
expect_code 3 linksync plan "$links" --format markdown --detailed-exitcode >drift.md
cat drift.md
grep -q "lnk.test/spring-sale | update | planned | url: https://example.com/edited-by-hand -&gt; " drift.md
linksync apply "$links" --yes >/dev/null 2>&1

step "export (the schema beside the files), then plan the export: expect 0"
linksync export --format yaml --split-by domain exported/
test -s exported/links.schema.json
expect_code 0 linksync plan exported/ --detailed-exitcode

step "a run holding the lock: apply --lock on the same file exits 2"
"$PYTHON" -c '
import sys, time
from linksync.pipeline.lock import acquire_lock
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
