#!/usr/bin/env bash
# Install linksync for the action, into its own virtual environment (so it works on any
# runner Python, PEP 668 included), and put that environment's bin/ on the job's PATH.
#
# LINKSYNC_VERSION (the action's `version` input) says what to install:
#   ""  or "action"   the action's own checkout (LINKSYNC_ACTION_PATH): the same ref as
#                     `uses: OWNER/linksync@REF`; needs no published package
#   "preinstalled"    nothing: use the linksync already on PATH (a runner image or the
#                     container that has it)
#   "0.2.0"           that release from the package index (linksync==0.2.0)
#   anything else     a pip requirement as it is: "git+https://github.com/OWNER/linksync@v0.2.0",
#                     "linksync>=0.2,<0.3", a path to a wheel
# LINKSYNC_DRY_RUN=1 prints the pip command instead of running it.
set -euo pipefail

version="${LINKSYNC_VERSION:-}"
action_path="${LINKSYNC_ACTION_PATH:-$(cd "$(dirname "$0")/.." && pwd)}"
python="${LINKSYNC_PYTHON:-python3}"

if [ "$version" = "preinstalled" ]; then
  if ! command -v linksync >/dev/null 2>&1; then
    echo "::error::version is 'preinstalled' but there is no linksync on PATH" >&2
    exit 2
  fi
  echo "linksync already installed: $(linksync --version)"
  exit 0
fi

if [ -z "$version" ] || [ "$version" = "action" ]; then
  requirement="$action_path"
  what="the action's checkout ($action_path)"
elif [[ "$version" =~ ^[0-9][0-9A-Za-z.+!-]*$ ]]; then
  requirement="linksync==$version"
  what="linksync $version from the package index"
else
  requirement="$version"
  what="$version"
fi

venv="${RUNNER_TEMP:-${TMPDIR:-/tmp}}/linksync-venv"
if [ "${LINKSYNC_DRY_RUN:-}" = "1" ]; then
  echo "would install $what: $venv/bin/python -m pip install $requirement"
  exit 0
fi

echo "Installing $what into $venv"
"$python" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "$requirement"
if [ -n "${GITHUB_PATH:-}" ]; then
  echo "$venv/bin" >>"$GITHUB_PATH"
fi
"$venv/bin/linksync" --version
