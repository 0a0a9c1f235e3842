"""Encrypted workbooks on the page: the password a person types, and where it goes.

A password-protected workbook dropped on the page is kept as it is (``Upload.encrypted``).
When the Check says a workbook is encrypted, the page shows a password box; what is typed
there stays in that tab's memory (the box, ``autocomplete="off"``: never in the
browser's storage, forgotten on reload), and the page's script sends it in the body of
each request of that visit that reads the uploads: Check, Plan and Apply.

The server takes it from that request (``password_of``) and hands it to the library in
memory (``linksync.Reading(workbook_password=...)``): the uploads are decrypted in memory
for that request, as ``--workbook-password-file`` has them decrypted. It keeps it
nowhere: the plan shown keeps the choices without it, an apply's run holds it while it
reads and drops it when it ends, and it is never written (run records, reports,
journals, annotated copies: an encrypted workbook gets none, as on the command line),
logged, or put in an answer; the command line the page shows names
``--workbook-password-file FILE`` instead. A wrong one is said as such
(``locked_words``: "the password does not open campaign.xlsx").
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from linksync.errors import SourceError
from linksync.sources.encrypted import workbook_password
from linksync.ui.uploads import Upload
from linksync.ui.words import PASSWORD_BOX

#: Longest password taken (Excel's own limit is 255 characters).
MAX_PASSWORD = 1024


def password_of(body: Mapping[str, Any]) -> str | None:
    """The password a step's body carries (None: none typed); ``ValueError`` for one the
    page never sends (the message does not repeat it)."""
    value = body.get("password")
    if value is None or value == "":
        return None
    if not isinstance(value, str) or len(value) > MAX_PASSWORD or "\0" in value:
        raise ValueError(f"password: expected a text of at most {MAX_PASSWORD} characters")
    return value


def opens(path: Path, password: str) -> bool:
    """False when ``password`` is not the password of the encrypted workbook ``path``
    (its key is derived and checked, nothing decrypted); True otherwise, also when the
    protection is not a password's (the readers then say what it is)."""
    import msoffcrypto  # type: ignore[import-untyped]  # no stubs
    from msoffcrypto.exceptions import InvalidKeyError  # type: ignore[import-untyped]

    try:
        with path.open("rb") as fh:
            msoffcrypto.OfficeFile(fh).load_key(password=password, verify_password=True)
    except InvalidKeyError:
        return False
    except Exception:  # not a password's matter: the readers say what it is
        return True
    return True


def _refusal(upload: Upload, password: str | None, end: str = "") -> str | None:
    """Why ``password`` does not read the encrypted ``upload`` (None: it does)."""
    if password is None:
        return f"{upload.name} is encrypted: type its password at {PASSWORD_BOX}{end}"
    return None if opens(upload.path, password) else f"the password does not open {upload.name}"


def locked(
    uploads: tuple[Upload, ...], password: str | None, *, profile_env: str | None = None
) -> str | None:
    """Why the encrypted ``uploads`` cannot be read with ``password`` (None: they can,
    or there are none): checked before an apply starts, so a run never fails on it.
    Without a password, the variable the profile's ``workbook_password_env`` names
    (``profile_env``) is the readers' to try, when it is set."""
    if password is None and workbook_password(env_name=profile_env):
        return None
    return next(filter(None, (_refusal(u, password) for u in uploads if u.encrypted)), None)


def locked_words(
    uploads: tuple[Upload, ...], error: SourceError, password: str | None
) -> str | None:
    """The page's words for ``error`` when it is about an encrypted upload the page can
    open with the right password: none was typed, or the one typed does not open it;
    None for any other error (the library's words then)."""
    upload = next((u for u in uploads if u.encrypted and error.path in (u.name, str(u.path))), None)
    return None if upload is None else _refusal(upload, password, " to read it")
