"""What a listed link holds once: its short URL when the service's usual form gives it,
and the text it shares with the link made before it.

Most services (and the sandbox) answer ``shortUrl`` as ``https://<domain>/<slug>``: a
million listed links would hold a million such strings (about 78 bytes each) that the
record's own domain and slug already say. ``short_url_holder`` makes ``RemoteLink``
keep, for such a link, only a shared marker of the scheme in place of the text, and
give the very same text back whenever ``short_url`` is read. Any other short URL (a
path, a port, another host) is kept as it came. Equality, hashing, pickling and
``dataclasses.replace`` see the same value whichever way the record was made
(decoded from a list page, built from a dict, built by hand).

The same step shares text between a record and the one made before it: the domain
(a page's links are of one or a few domains), a ``created_at`` equal to the one
before (links made together, by an import or a bulk create, were made in the same
millisecond) and an ``updated_at`` equal to the record's own ``created_at``: the same
values, held once. It runs once a record, in the record's own ``__post_init__``
(msgspec calls it as it decodes a page: no pass over the page's links afterwards).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

import msgspec
from msgspec.structs import force_setattr

#: A record's domain or slug: decoded from a page it is never empty (a record without
#: one is read by the tolerant reader, which takes them from the short URL, so the
#: decoder refuses it in C); built by hand it may be (the service's own domain, before
#: it has a name, is "").
Named = Annotated[str, msgspec.Meta(min_length=1)]

#: What a record holds in place of ``<scheme>://<domain>/<slug>``: the scheme after a
#: NUL, which no URL begins with.
_MARK = "\0"
_HTTPS, _HTTP = _MARK + "https", _MARK + "http"
#: The name under which the class keeps the short URL field's own slot (the field's
#: name gives the text back, derived when it is not held).
_HELD = "_held_short_url"


def short_url_holder() -> tuple[Callable[[Any], None], Callable[[type], None]]:
    """``(held, bind)``: ``held`` is the class's ``__post_init__`` (given in its body: a
    record decoded from a list page calls it straight, one call a link, no method in
    between), and ``bind(cls)``, once the class is made, makes ``cls.short_url`` give the
    derived text back and ``held`` swap a short URL of the usual form for its marker."""
    # The text of the record made before, and the short URLs of the usual form on its
    # domain up to the slug: one tuple, read once into locals, so records made in two
    # threads at once share only equal text and test a URL against their own domain.
    before: tuple[str, str, str] = ("", "https:///", "http:///")
    made: str | None = None

    def held(link: Any) -> None:
        nonlocal before, made
        domain = link.domain
        host, https, http = before
        if domain is not host:
            if domain == host:
                force_setattr(link, "domain", host)
            else:  # a new domain: its two prefixes made once, not one text a link
                https, http = f"https://{domain}/", f"http://{domain}/"
                before = (domain, https, http)
        value = link._held_short_url
        if value:  # a marker (a record copied raw) equals neither: left as it is
            slug = link.slug
            if value == https + slug:
                force_setattr(link, _HELD, _HTTPS)
            elif value == http + slug:
                force_setattr(link, _HELD, _HTTP)
        created = link.created_at
        if created is not None:
            last = made
            if created is not last:
                if created == last:
                    force_setattr(link, "created_at", last)
                    created = last
                else:
                    made = created
            updated = link.updated_at
            if updated is not created and updated == created:
                force_setattr(link, "updated_at", created)

    def bind(cls: type) -> None:
        stored = cls.__dict__["short_url"]  # the field's slot, read and written raw
        setattr(cls, _HELD, stored)
        get = stored.__get__

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
