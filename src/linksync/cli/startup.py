"""What a command's own process sets before it loads anything: two libraries' start-up
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
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType

#: httpx's command line module.
HTTPX_COMMAND_LINE = "httpx._main"


class _SkipHttpxCommandLine:
    """A ``sys.meta_path`` finder that refuses ``httpx._main`` to httpx's first
    import only (see the module docstring); every other import it leaves to the next
    finder."""

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None = None,
        target: ModuleType | None = None,
    ) -> ModuleSpec | None:
        if fullname != HTTPX_COMMAND_LINE:
            return None
        httpx = sys.modules.get("httpx")
        if httpx is None or hasattr(httpx, "main"):
            return None  # asked for by name, not by httpx's __init__: imported as ever
        # Off the list before raising: the import system stops its walk of
        # sys.meta_path on the error, so the removal skips no finder.
        sys.meta_path.remove(self)
        raise ModuleNotFoundError(
            f"{fullname} is not loaded by linksync's command line", name=fullname
        )


def skip_httpx_command_line() -> None:
    """Keep httpx's command line out of httpx's first import in this process; nothing
    when httpx is loaded already."""
    if "httpx" in sys.modules or any(isinstance(f, _SkipHttpxCommandLine) for f in sys.meta_path):
        return
    sys.meta_path.insert(0, _SkipHttpxCommandLine())


def one_blas_thread() -> None:
    """One OpenBLAS thread, unless the user set their number (an empty value, which
    OpenBLAS ignores, counts as not set)."""
    if not os.environ.get("OPENBLAS_NUM_THREADS"):
        os.environ["OPENBLAS_NUM_THREADS"] = "1"


def prepare() -> None:
    """Both, before the command loads anything."""
    skip_httpx_command_line()
    one_blas_thread()
