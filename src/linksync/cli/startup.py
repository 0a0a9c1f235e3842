"""What a command's own process sets before it loads anything: three libraries' start-up
work that no linksync command uses, left out (``linksync.cli.main`` calls ``prepare``).

- httpx's own command line. ``import httpx`` imports ``httpx._main`` (click, rich's
  console and progress bars, pygments' lexers: 60-90 ms of a small run's start-up)
  whenever they are installed, and they are (linksync's terminal output uses rich),
  though only ``python -m httpx`` runs it. ``httpx/__init__.py`` imports it in a
  ``try`` and, on ``ImportError``, defines a ``main`` that explains what is missing. A
  finder (``_SkipHttpxCommandLine``, first on ``sys.meta_path``) answers that one
  import, made while httpx's ``__init__`` runs (its ``main`` not defined yet), with
  ``ModuleNotFoundError``, and takes itself off then. Nothing is put in
  ``sys.modules``: an ``import httpx._main`` made later in the process (by a caller's
  code, or a plugin) imports httpx's command line as ever.
- OpenBLAS's threads. numpy (the readers hold a source's links as numpy columns)
  starts OpenBLAS, whose threads, one a core, spin on start-up: importing numpy costs
  about 150 ms of CPU for 80 ms of wall time on two cores, CPU taken from the run's
  requests and the reading beside them. linksync does no linear algebra, so it asks
  for one thread (``OPENBLAS_NUM_THREADS=1``, OpenBLAS's documented setting), unless
  the user set it.
- aiohttp's default TLS contexts. ``import aiohttp`` makes two (``aiohttp.connector``:
  one verifying, one not), each loading the system's CA store: 40-50 ms of CPU each
  with OpenSSL 3.0, before the first request. linksync never lets aiohttp use them: a
  run that speaks TLS hands aiohttp its own context (``linksync.api.aio``: the CA
  file, SSL_CERT_FILE / SSL_CERT_DIR, the OS store), and a run against an ``http://``
  service speaks none. A finder (``_AiohttpContextsWithoutCAs``) runs that one import
  with the CA store's load left out of the contexts the importing thread makes
  meanwhile, and takes itself off. The verifying default is left with no CA, so a
  connection that would use it fails to verify (nothing is trusted by default); the
  other verifies nothing, as before. Every other context, made by any thread before,
  during or after, loads its CAs as ever.
"""

from __future__ import annotations

import os
import ssl
import sys
import threading
from collections.abc import Sequence
from importlib.machinery import ModuleSpec, PathFinder
from types import ModuleType

#: httpx's command line module.
HTTPX_COMMAND_LINE = "httpx._main"
#: aiohttp's module that makes its default TLS contexts when imported.
AIOHTTP_CONNECTOR = "aiohttp.connector"


class _OneModule:
    """A ``sys.meta_path`` finder that acts on the import of one module (``name``);
    every other import it leaves to the next finder."""

    name = ""

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None = None,
        target: ModuleType | None = None,
    ) -> ModuleSpec | None:
        return self.found(path, target) if fullname == self.name else None

    def found(self, path: Sequence[str] | None, target: ModuleType | None) -> ModuleSpec | None:
        raise NotImplementedError


def _first(finder: _OneModule, loaded: str) -> None:
    """``finder`` first on ``sys.meta_path``; nothing when ``loaded`` is imported
    already (too late) or a finder of its kind is there."""
    if loaded in sys.modules or any(type(f) is type(finder) for f in sys.meta_path):
        return
    sys.meta_path.insert(0, finder)


class _SkipHttpxCommandLine(_OneModule):
    """Refuses ``httpx._main`` to httpx's first import only (see the module
    docstring)."""

    name = HTTPX_COMMAND_LINE

    def found(self, path: Sequence[str] | None, target: ModuleType | None) -> ModuleSpec | None:
        httpx = sys.modules.get("httpx")
        if httpx is None or hasattr(httpx, "main"):
            return None  # asked for by name, not by httpx's __init__: imported as ever
        # Off the list before raising: the import system stops its walk of
        # sys.meta_path on the error, so the removal skips no finder.
        sys.meta_path.remove(self)
        raise ModuleNotFoundError(
            f"{self.name} is not loaded by linksync's command line", name=self.name
        )


def skip_httpx_command_line() -> None:
    """Keep httpx's command line out of httpx's first import in this process; nothing
    when httpx is loaded already."""
    _first(_SkipHttpxCommandLine(), "httpx")


class _AiohttpContextsWithoutCAs(_OneModule):
    """Imports ``aiohttp.connector`` (found as ever, by the path finder) with no CA
    store loaded into the contexts the importing thread makes while the module runs
    (see the module docstring)."""

    name = AIOHTTP_CONNECTOR

    def found(self, path: Sequence[str] | None, target: ModuleType | None) -> ModuleSpec | None:
        sys.meta_path.remove(self)
        spec = PathFinder.find_spec(self.name, path, target)
        loader = spec.loader if spec is not None else None
        if loader is None or not hasattr(loader, "exec_module"):
            return None  # found some other way: imported as ever
        run = loader.exec_module
        importing = threading.get_ident()
        load = ssl.SSLContext.set_default_verify_paths

        def set_default_verify_paths(context: ssl.SSLContext) -> None:
            if threading.get_ident() != importing:
                load(context)

        def exec_module(module: ModuleType) -> None:
            ssl.SSLContext.set_default_verify_paths = set_default_verify_paths  # type: ignore[method-assign,assignment]
            try:
                run(module)
            finally:
                del ssl.SSLContext.set_default_verify_paths  # the _ssl method again

        loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


def skip_aiohttp_default_cas() -> None:
    """Keep the CA store out of aiohttp's default contexts in this process; nothing
    when ``aiohttp.connector`` is loaded already."""
    _first(_AiohttpContextsWithoutCAs(), AIOHTTP_CONNECTOR)


def one_blas_thread() -> None:
    """One OpenBLAS thread, unless the user set their number (an empty value, which
    OpenBLAS ignores, counts as not set)."""
    if not os.environ.get("OPENBLAS_NUM_THREADS"):
        os.environ["OPENBLAS_NUM_THREADS"] = "1"


def prepare() -> None:
    """All three, before the command loads anything."""
    skip_httpx_command_line()
    skip_aiohttp_default_cas()
    one_blas_thread()
