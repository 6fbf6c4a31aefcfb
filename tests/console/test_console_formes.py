"""Forms that forgive: a refused post shows the same form again, with what was typed and the reason next to the
field; amounts typed as people type them (« 2 500 », « 2 500 », « 2500 ») are read; the internal transfer
proposes the everyday direction (cash to the bank) under the label that says so."""

from __future__ import annotations

import re

from tests.console.connexion import KEY, sign_in
from tests.factories.tresoreries import declarer, org_avec_encaissement


def _selected(html: str, select: str) -> str:
    block = re.search(rf'<select id="{select}".*?</select>', html, re.S)
    assert block, html
    found = re.search(r'<option value="([^"]+)" selected>', block.group(0))
    return found.group(1) if found else ""


async def _bureau(client, factory, db):
    org, treasurer, _, _ = await org_avec_encaissement(client, factory, db, "20000")
    # The bank declared first: the form must still propose cash → bank, not the first two in its list.
    banque = (await client.post("/api/tresoreries", headers=treasurer.headers,
                                json=declarer(org, "BANQUE", "Banque CBAO", "5211"))).json()
    caisse = (await client.post("/api/tresoreries", headers=treasurer.headers,
                                json=declarer(org, "CAISSE", "Caisse du siège", "571"))).json()
    client.cookies.clear()
    csrf = await sign_in(client, treasurer, db)
    return org, treasurer, caisse, banque, csrf


async def test_the_transfer_form_defaults_to_cash_deposited_at_the_bank(client, factory, db):
    _org, _t, caisse, banque, _csrf = await _bureau(client, factory, db)
    page = await client.get("/console/tresoreries")
    assert page.status_code == 200, page.text
    assert _selected(page.text, "source") == caisse["id"]
    assert _selected(page.text, "destination") == banque["id"]
    assert 'value="Dépôt de la caisse à la banque"' in page.text


async def test_a_refused_transfer_shows_the_form_again_with_what_was_typed(client, factory, db):
    org, treasurer, caisse, banque, csrf = await _bureau(client, factory, db)
    page = await client.get("/console/tresoreries")
    form = {"csrf": csrf, "idempotency_key": KEY.search(page.text).group(1), "source": banque["id"],
            "destination": caisse["id"], "montant": "deux mille", "libelle": "Retrait pour la fête"}
    refused = await client.post("/console/tresoreries/virements", data=form)
    assert refused.status_code == 400 and refused.headers["content-type"].startswith("text/html")
    assert 'role="alert"' in refused.text and "Montant invalide" in refused.text
    # The reason next to the field, the field described by it, and what was typed kept (direction included).
    assert '<span class="raison" id="raison-montant">' in refused.text
    assert 'aria-describedby="raison-montant"' in refused.text
    assert 'value="deux mille"' in refused.text and 'value="Retrait pour la fête"' in refused.text
    assert _selected(refused.text, "source") == banque["id"] and _selected(refused.text, "destination") == caisse["id"]
    # The same key, corrected: « 2 500 » typed with a narrow no-break space, as copied from a page.
    done = await client.post("/console/tresoreries/virements", data={
        **form, "source": caisse["id"], "destination": banque["id"], "montant": "2\u202f500"})
    assert done.status_code == 303, done.text
    soldes = {t["nom"]: t["solde"] for t in (await client.get(
        "/api/tresoreries", headers=treasurer.headers, params={"organisationId": str(org.id)})).json()}
    assert soldes["Banque CBAO"] == "2500.00"


async def test_a_refused_payout_shows_its_form_again_not_an_error_page(client, factory, db):
    _org, _t, _caisse, _banque, csrf = await _bureau(client, factory, db)
    page = await client.get("/console/versements")
    refused = await client.post("/console/versements", data={
        "csrf": csrf, "idempotency_key": KEY.search(page.text).group(1), "objet_type": "AUTRE", "montant": "0",
        "motif": "Achat de chaises", "beneficiaire_nom": "Quincaillerie Ndiaye", "mode": "MANUEL"})
    assert refused.status_code == 400
    assert "<h1>Versements" in refused.text and "positif" in refused.text
    assert 'value="Achat de chaises"' in refused.text and 'value="Quincaillerie Ndiaye"' in refused.text
    assert '<span class="raison" id="raison-montant">' in refused.text


def test_every_console_form_has_a_page_to_come_back_to():
    """A refused post shows its form again: each POST names its form page, or has a GET on the same path."""
    from unionflow.console import router  # noqa: F401  (registers every page)
    from unionflow.console.pages import FORM_PAGES, GET_HANDLERS, PREFIX

    # A dues cancellation comes from the member's page named in its form (no path parameter to rebuild it).
    sans_formulaire = {PREFIX + "/cotisations/annuler"}
    missing = [path for path, again in FORM_PAGES.items()
               if path not in sans_formulaire
               and (GET_HANDLERS.get(PREFIX + again) if isinstance(again, str) else again or GET_HANDLERS.get(path))
               is None]
    assert not missing, missing
