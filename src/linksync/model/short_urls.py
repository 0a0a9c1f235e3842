"""A listed link's short URL, not held when the service's usual form gives it.

Most services (and the sandbox) answer ``shortUrl`` as ``https://<domain>/<slug>``: a
million listed links would hold a million such strings (about 78 bytes each) that the
record's own domain and slug already say. ``short_url_holder`` makes ``RemoteLink``
keep, for such a link, only a shared marker of the scheme in place of the text, and
give the very same text back whenever ``short_url`` is read. Any other short URL (a
path, a port, another host) is kept as it came. Equality, hashing, pickling and
``dataclasses.replace`` see the same value whichever way the record was made
(decoded from a list page, built from a dict, built by hand).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

#: What a record holds in place of ``<scheme>://<domain>/<slug>``: the scheme after a
#: NUL, which no URL begins with.
_MARK = "\0"
_HTTPS, _HTTP = _MARK + "https", _MARK + "http"


def short_url_holder() -> tuple[Callable[[Any], None], Callable[[type], None]]:
    """``(held, bind)``: ``held`` is the class's ``__post_init__`` (given in its body: a
    record decoded from a list page calls it straight, one call a link, no method in
    between), and ``bind(cls)``, once the class is made, makes ``cls.short_url`` give the
    derived text back and ``held`` swap a short URL of the usual form for its marker."""
    get: Callable[..., str | None]
    put: Callable[[Any, str], None]

    def held(link: Any) -> None:
        value = get(link)
        if not value or value[0] == _MARK:
            return
        domain, slug = link.domain, link.slug
        if value == f"https://{domain}/{slug}":
            put(link, _HTTPS)
        elif value == f"http://{domain}/{slug}":
            put(link, _HTTP)

    def bind(cls: type) -> None:
        nonlocal get, put
        stored = cls.__dict__["short_url"]  # the field's slot, read and written raw
        get, put = stored.__get__, stored.__set__

        def short_url(link: Any) -> str | None:
            value: str | None = get(link, cls)
            if value is not None and value[:1] == _MARK:
                return f"{value[1:]}://{link.domain}/{link.slug}"
            return value

        names = cls.__struct_fields__  # type: ignore[attr-defined]

        def shown(link: Any) -> str:  # as msgspec shows a record, the short URL as read
            return f"{cls.__name__}({', '.join(f'{n}={getattr(link, n)!r}' for n in names)})"

        setattr(cls, "short_url", property(short_url, doc="The link's short URL."))  # noqa: B010
        setattr(cls, "__repr__", shown)  # noqa: B010

    return held, bind
