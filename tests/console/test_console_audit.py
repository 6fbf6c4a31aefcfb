"""The auditor's audit-trail screen: who, what, when, before and after; filters; the CSV of a search."""

from __future__ import annotations

from tests.console.connexion import sign_in
from tests.saisies.test_quatre_yeux import _bureau, _depense


async def test_the_auditor_reads_the_trail_filters_it_and_downloads_it(client, factory, db):
    _, treasurer, _, _, auditor, member, comptes, cai = await _bureau(client, factory, db)
    asked = await client.post("/api/comptabilite/ecritures", headers=treasurer.headers,
                              json=_depense(cai, comptes, "1000"))
    assert asked.status_code == 202
    await sign_in(client, auditor, db)
    page = await client.get("/console/journal-audit")
    assert page.status_code == 200 and "DEMANDER" in page.text and treasurer.user.email in page.text
    assert "Journal d&#39;audit" in page.text or "Journal d'audit" in page.text
    filtered = await client.get("/console/journal-audit", params={"typeAction": "demander", "module": "comptabilite"})
    assert filtered.status_code == 200 and "1 entrée(s)" in filtered.text
    exported = await client.get("/console/journal-audit.csv", params={"typeAction": "DEMANDER"})
    assert exported.status_code == 200 and exported.headers["content-type"].startswith("text/csv")
    rows = exported.text.lstrip("\ufeff").splitlines()
    assert rows[0].startswith("Date et heure (UTC);Utilisateur") and len(rows) == 2 and "DEMANDER" in rows[1]
    client.cookies.clear()
    await sign_in(client, member, db)
    assert (await client.get("/console/journal-audit")).status_code == 403
