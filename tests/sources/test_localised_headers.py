"""A sheet whose headers are in another language is read by them.

A German team's export says "Kurzlink", "Ziel-URL", "Beschreibung", "Ablaufdatum".
No header was known: the file was refused for want of a URL column, and with the
mapping the message asked for (``--map Ziel-URL=url``) the links were created under
generated slugs, without their expiry, their own short links left in a column
"ignored" by a sheet-level warning, exit 0. Now the usual headers of German, French,
Spanish, Italian, Dutch and Portuguese sheets are known; a short-link column holding
only a back-half is an error on its row (never a generated slug)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hostile_inputs import Expect, remote, run, validate


def test_a_german_export_is_read_by_its_headers(workdir: Path) -> None:
    path = workdir / "export.csv"
    path.write_text(
        "Kurzlink,Ziel-URL,Beschreibung,Ablaufdatum,Schlagwörter\n"
        "https://lnk.test/fruehling,https://example.com/fruehling,Frühling,2030-03-01,"
        '"frühling,aktion"\n'
        "sommer,https://example.com/sommer,Sommer,,\n",
        encoding="utf-8",
    )
    validate(
        path,
        code=1,
        expect=[Expect(3, "Kurzlink", "the short link 'sommer' cannot be split")],
        good_rows=[2],
    )
    result = run("apply", "export.csv", "--yes", "--no-progress")
    assert result.exit_code == 1, result.output
    links = remote(workdir)
    assert sorted(links) == ["fruehling"], "a slug was generated for the row of 'sommer'"
    link = links["fruehling"]
    assert link.url == "https://example.com/fruehling" and link.description == "Frühling"
    assert str(link.expires_at).startswith("2030-03-01")
    assert sorted(link.tags) == ["aktion", "frühling"]


@pytest.mark.parametrize(
    "header",
    [
        "Lien court;URL de destination;Description;Date d'expiration",
        "Enlace corto;URL de destino;Descripcion;Fecha de caducidad",
        "Link breve;URL di destinazione;Descrizione;Data di scadenza",
        "Korte link;Doel-URL;Omschrijving;Vervaldatum",
        "Link curto;URL de destino;Descrição;Data de validade",
    ],
    ids=["fr", "es", "it", "nl", "pt"],
)
def test_other_languages_are_read_too(workdir: Path, header: str) -> None:
    path = workdir / "export.csv"
    path.write_text(
        f"{header}\nhttps://lnk.test/promo-1;https://example.com/p;Promo;2030-01-31\n",
        encoding="utf-8",
    )
    checked = validate(path, code=0)
    assert not checked.problems, checked.problems
    fields = {c["field"] for c in checked.doc["columns"][0]["columns"]}
    assert fields == {"short_url", "url", "description", "expires_at"}, checked.doc["columns"]
