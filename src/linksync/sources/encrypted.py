"""Encrypted workbooks: told apart, and decrypted in memory when given the password.

A password-protected .xlsx (and what a sensitivity label makes of a workbook) is not a
zip but an OLE compound file (bytes ``D0 CF 11 E0 A1 B1 1A E1``) holding the streams
``EncryptionInfo`` and ``EncryptedPackage``; an old binary .xls is an OLE file too, and
is encrypted only when its workbook stream says so. ``msoffcrypto-tool`` reads both
(``OfficeFile.is_encrypted``) and decrypts them into memory: the plain bytes never
touch the disk, and every guard of the readers (the sheet guard, the zip-bomb limits)
applies to them as to any workbook.

The password comes from a file (``--workbook-password-file FILE``: one trailing line
break is not part of it) or from an environment variable a profile names
(``workbook_password_env: CAMPAIGN_PW``), never from a command-line value, which
shells keep in their history and ``ps`` shows to every user. It is never printed:
errors say which file failed, not with what.
"""

from __future__ import annotations

import io
import os
from pathlib import Path

from linksync.errors import ConfigError, SourceError

#: The first bytes of an OLE compound file.
OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"

#: What the user is told to do when a workbook is encrypted and no password is given.
GIVE_PASSWORD = (
    "give the password with --workbook-password-file FILE (a file holding it), or name "
    "an environment variable holding it with the profile's workbook_password_env:; a "
    "workbook protected by a sensitivity label must be saved as an unprotected copy"
)


def is_ole(path: Path) -> bool:
    """True when ``path`` starts as an OLE compound file does."""
    try:
        with path.open("rb") as fh:
            return fh.read(len(OLE_MAGIC)) == OLE_MAGIC
    except OSError:
        return False


def is_encrypted_workbook(path: Path) -> bool:
    """True for an encrypted workbook (an OOXML package in an OLE file, or an .xls
    whose workbook is encrypted); False for a zip workbook or a plain .xls."""
    if not is_ole(path):
        return False
    import msoffcrypto  # type: ignore[import-untyped]  # no stubs

    try:
        with path.open("rb") as fh:
            return bool(msoffcrypto.OfficeFile(fh).is_encrypted())
    except Exception:  # an OLE file msoffcrypto does not know: not one it can decrypt
        return False


def decrypt_workbook(path: Path, display: str, password: str | None) -> bytes:
    """The decrypted bytes of the encrypted workbook ``path``; ``SourceError`` (nothing
    read) without a password, with a wrong one, or when the protection is not a
    password's (a sensitivity label's rights management)."""
    if password is None:
        raise SourceError(
            f"{display}: this workbook is encrypted (password or sensitivity label), so "
            f"linksync cannot read it: {GIVE_PASSWORD}",
            path=display,
        )
    import msoffcrypto
    from msoffcrypto.exceptions import InvalidKeyError  # type: ignore[import-untyped]

    out = io.BytesIO()
    try:
        with path.open("rb") as fh:
            office = msoffcrypto.OfficeFile(fh)
            office.load_key(password=password)
            office.decrypt(out)
    except InvalidKeyError:
        raise SourceError(
            f"{display}: this workbook is encrypted and the password given does not open "
            "it (check the file given with --workbook-password-file, or the variable the "
            "profile's workbook_password_env: names)",
            path=display,
        ) from None
    except OSError as exc:
        raise SourceError(f"{display}: cannot read: {exc.strerror or exc}", path=display) from None
    except Exception as exc:  # msoffcrypto raises many kinds on what it cannot decrypt
        raise SourceError(
            f"{display}: this workbook is encrypted in a way linksync cannot decrypt "
            f"({type(exc).__name__}; a sensitivity label's protection is not a password's): "
            "save an unprotected copy and read that",
            path=display,
        ) from None
    return out.getvalue()


def read_password_file(path: str | os.PathLike[str]) -> str:
    """The password held in the file ``path``, without one trailing line break."""
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        raise ConfigError(f"--workbook-password-file {path}: not UTF-8 text") from None
    except OSError as exc:
        raise ConfigError(
            f"--workbook-password-file {path}: cannot read: {exc.strerror or exc}"
        ) from None
    text = text.removesuffix("\n").removesuffix("\r")  # one line break: \r\n, \n or \r
    if not text:
        raise ConfigError(f"--workbook-password-file {path}: the file is empty")
    return text


def workbook_password(
    *,
    password_file: str | os.PathLike[str] | None = None,
    env_name: str | None = None,
) -> str | None:
    """The workbook password: from ``password_file`` when given, else from the
    environment variable ``env_name`` (a profile's ``workbook_password_env``), else
    None (also when that variable is not set: only an encrypted workbook needs it, and
    it says so)."""
    if password_file is not None:
        return read_password_file(password_file)
    if env_name:
        value = os.environ.get(env_name)
        return value or None  # unset: an encrypted workbook says what to give
    return None
