"""The « Fédération » page (issue 20 item 6): the federation's bureau sees its network's consolidated table and
downloads the consolidated statements; a mutual's treasurer sees only his own mutual there."""

from __future__ import annotations

from tests.console.connexion import sign_in
from tests.factories.federation import reseau
from tests.factories.paiements import encaisser


async def test_federation_page_shows_the_consolidated_table_and_statements(client, factory, db):
    r = await reseau(factory)
    await encaisser(client, db, r.mutuelle, r.tresorier, r.membres[0], "5000", "VIREMENT")
    await encaisser(client, db, r.soeur, r.tresorier_soeur, r.membres[2], "3000", "VIREMENT")
    await sign_in(client, r.tresorier_federation, db)
    board = await client.get("/console/tresorerie")
    assert board.status_code == 200 and 'href="/console/federation"' in board.text, board.text
    page = await client.get("/console/federation")
    assert page.status_code == 200, page.text
    html = page.text
    assert r.mutuelle.nom in html and r.soeur.nom in html and 'id="consolidation"' in html
    assert "8\u202f000" in html  # dues collected by the two mutuals
    assert "/console/federation/etats?format=pdf" in html
    printed = await client.get("/console/federation/etats", params={"format": "pdf"})
    assert printed.status_code == 200 and printed.content.startswith(b"%PDF")
    assert len(html.encode()) < 30_000


async def test_a_mutual_treasurer_sees_only_his_own_mutual_there(client, factory, db):
    r = await reseau(factory)
    await sign_in(client, r.tresorier, db)
    board = await client.get("/console/tresorerie")
    assert board.status_code == 200 and "/console/federation" not in board.text
    own = await client.get("/console/federation")  # his own mutual: itself only
    assert own.status_code == 200 and r.soeur.nom not in own.text
