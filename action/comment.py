#!/usr/bin/env python3
"""Post the plan on the pull request as ONE comment, and edit that comment in place on
later pushes. The comment is found by a hidden marker on its first line
(``<!-- linksync-plan:ID -->``, ID from the ``comment-id`` input, so two uses of the
action in one repository keep two comments).

Standard library only; the GitHub REST API (``GITHUB_API_URL``, default
https://api.github.com) with the job's token:

  GET   /repos/{repo}/issues/{number}/comments?per_page=100&page=N   (every page)
  PATCH /repos/{repo}/issues/comments/{id}                           (ours, found)
  POST  /repos/{repo}/issues/{number}/comments                       (none yet)

Environment: GITHUB_TOKEN, GITHUB_REPOSITORY (owner/name), GITHUB_EVENT_PATH (the
event; its pull_request.number) or LINKSYNC_PR_NUMBER, LINKSYNC_EVENT (the event name),
LINKSYNC_COMMENT ("false" turns it off), LINKSYNC_COMMENT_ID, LINKSYNC_PLAN_MARKDOWN
(the file run.py wrote).

Nothing to do (not a pull request, comments off, no plan) exits 0 and says why. A
refused request (a fork's read-only token, a missing permission) is a warning: the plan
is in the job summary anyway; the job's verdict is the action's last step.
"""

from __future__ import annotations

import json
import os
import sys
import urllib.error
import urllib.request
from typing import Any

PR_EVENTS = ("pull_request", "pull_request_target")
MAX_BODY = 65_000  # GitHub refuses comments over 65,536 characters
PAGE = 100


class GitHub:
    def __init__(self, api: str, token: str) -> None:
        self.api = api.rstrip("/")
        self.token = token

    def call(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        data = json.dumps(body).encode("utf-8") if body is not None else None
        request = urllib.request.Request(self.api + path, data=data, method=method)
        request.add_header("Authorization", f"Bearer {self.token}")
        request.add_header("Accept", "application/vnd.github+json")
        request.add_header("X-GitHub-Api-Version", "2022-11-28")
        request.add_header("User-Agent", "linksync-action")
        if data is not None:
            request.add_header("Content-Type", "application/json")
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.loads(response.read() or b"null")

    def find(self, repo: str, number: int, marker: str) -> dict[str, Any] | None:
        page = 1
        while True:
            batch = self.call(
                "GET", f"/repos/{repo}/issues/{number}/comments?per_page={PAGE}&page={page}"
            )
            for comment in batch:
                if str(comment.get("body") or "").startswith(marker):
                    return dict(comment)
            if len(batch) < PAGE:
                return None
            page += 1


def marker_for(comment_id: str) -> str:
    return f"<!-- linksync-plan:{comment_id or 'default'} -->"


def comment_body(marker: str, markdown: str) -> str:
    """The comment: the marker, then the plan; past ``MAX_BODY`` cut at a line (within
    one line too long for the comment, at a character), and the last line says how many
    of the plan's table rows and lines are not shown."""
    body = f"{marker}\n{markdown}"
    if len(body) <= MAX_BODY:
        return body
    room = MAX_BODY - 300
    cut = body.rfind("\n", 0, room)
    cut = cut + 1 if cut > len(marker) else room  # the marker stays: the comment is found
    dropped = body[cut:].splitlines()
    rows = sum(1 for line in dropped if line.startswith("| ") and not line.startswith("| ---"))
    what = f"{rows} table row(s) and " if rows else ""
    return (
        body[:cut].rstrip("\n")
        + f"\n\n_The plan is too long for one comment: its last {what}{len(dropped)} line(s) "
        "are not shown here; the job summary has the whole plan._\n"
    )


def pr_number(env: dict[str, str]) -> int | None:
    given = env.get("LINKSYNC_PR_NUMBER", "").strip()
    if given.isdigit():
        return int(given)
    path = env.get("GITHUB_EVENT_PATH")
    if not path or not os.path.isfile(path):
        return None
    with open(path, encoding="utf-8") as f:
        event = json.load(f)
    number = (event.get("pull_request") or {}).get("number") or event.get("number")
    return int(number) if number else None


def skip(reason: str) -> int:
    print(f"No plan comment: {reason}.")
    return 0


def main(env: dict[str, str]) -> int:
    if env.get("LINKSYNC_COMMENT", "true").strip().lower() == "false":
        return skip("the comment input is false")
    if env.get("LINKSYNC_EVENT", env.get("GITHUB_EVENT_NAME", "")) not in PR_EVENTS:
        return skip("not a pull request")
    plan_path = env.get("LINKSYNC_PLAN_MARKDOWN", "").strip()
    if not plan_path or not os.path.isfile(plan_path):
        return skip("no plan was made (see the linksync step)")
    number, repo = pr_number(env), env.get("GITHUB_REPOSITORY", "")
    token = env.get("GITHUB_TOKEN", "")
    if number is None or not repo or not token:
        return skip("the pull request number, the repository or the token is unknown")
    with open(plan_path, encoding="utf-8") as f:
        markdown = f.read()
    marker = marker_for(env.get("LINKSYNC_COMMENT_ID", ""))
    github = GitHub(env.get("GITHUB_API_URL") or "https://api.github.com", token)
    body = comment_body(marker, markdown)
    try:
        mine = github.find(repo, number, marker)
        if mine is None:
            made = github.call("POST", f"/repos/{repo}/issues/{number}/comments", {"body": body})
            print(f"Plan posted on pull request #{number}: {made.get('html_url', '')}")
        else:
            github.call("PATCH", f"/repos/{repo}/issues/comments/{mine['id']}", {"body": body})
            print(f"Plan comment on pull request #{number} updated: {mine.get('html_url', '')}")
    except (urllib.error.URLError, OSError, ValueError) as exc:
        status = getattr(exc, "code", None)
        why = f"HTTP {status}" if status else str(exc)
        print(
            f"::warning::could not post the plan on pull request #{number} ({why}); "
            "the job needs `permissions: pull-requests: write` (forks get a read-only "
            "token). The plan is in the job summary."
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(dict(os.environ)))
