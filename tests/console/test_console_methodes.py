"""Issue 28 — chaque méthode dans sa trésorerie, in the console: the counter and the member's declaration offer a
Wave transfer (with its transaction id), Orange Money and Free Money; the treasurer confirming a declaration may
correct its method and treasury, shown on the payment's page and receipt."""

from __future__ import annotations

import re
from decimal import Decimal

from sqlalchemy import func, select

from tests.console.connexion import KEY, sign_in
from tests.factories.cotisations import cotisation
from tests.factories.tresoreries import declarer
from tests.livres import solde
from tests.pdf import pdf_text
from unionflow.models import Paiement, WaveCheckout

TRANSACTION = "T_4FJX2K7QZP1M"


async def test_guichet_transfert_wave_et_mobile_money_dans_leur_tresorerie(client, factory, db):
    org = await factory.organisation()
    tresorier = await factory.actor(organisation=org, org_roles=["TRESORIER"])
    membre = await factory.membre(org)
    csrf = await sign_in(client, tresorier, db)
    for methode, compte in (("WAVE_TRANSFERT", "5521"), ("ORANGE_MONEY", "5522"), ("FREE_MONEY", "5523")):
        due = await cotisation(db, membre, org, 1000)
        form = await client.get(f"/console/membres/{membre.id}/encaisser")
        assert f'value="{methode}"' in form.text
        created = await client.post(f"/console/membres/{membre.id}/encaisser", data={
            "csrf": csrf, "idempotency_key": KEY.search(form.text).group(1), "cotisation": str(due.id),
            "montant": "1000", "methode": methode, "reference": TRANSACTION})
        assert created.status_code == 303, created.text
        assert await solde(db, org, compte) == Decimal("1000"), methode
    assert await solde(db, org, "571") == 0
    assert (await db.execute(select(func.count()).select_from(WaveCheckout))).scalar_one() == 0
    # A Wave transfer without its transaction id: the form again, with the reason.
    due = await cotisation(db, membre, org, 1000)
    form = await client.get(f"/console/membres/{membre.id}/encaisser")
    refused = await client.post(f"/console/membres/{membre.id}/encaisser", data={
        "csrf": csrf, "idempotency_key": KEY.search(form.text).group(1), "cotisation": str(due.id),
        "montant": "1000", "methode": "WAVE_TRANSFERT", "reference": "pas un identifiant"})
    assert refused.status_code == 400 and "identifiant de transaction Wave" in refused.text


async def test_declaration_corrigee_a_la_confirmation(client, factory, db):
    org = await factory.organisation()
    tresorier = await factory.actor(organisation=org, org_roles=["TRESORIER"])
    membre = await factory.actor(organisation=org, org_roles=["MEMBRE"])
    csrf = await sign_in(client, tresorier, db)
    wave = (await client.post("/api/tresoreries", headers=tresorier.headers,
                              json=declarer(org, "WAVE", "Wave du bureau", "52151"))).json()
    # The member declares a Wave transfer with its id (kept), and a second one as « Autre ».
    client.cookies.clear()
    csrf = await sign_in(client, membre, db)
    ids = []
    for methode, reference in (("WAVE_TRANSFERT", TRANSACTION), ("AUTRE", "")):
        due = await cotisation(db, membre.membre, org, 2000)
        form = await client.get(f"/console/moi/cotisations/{due.id}/declarer")
        assert 'value="WAVE_TRANSFERT"' in form.text
        declared = await client.post(f"/console/moi/cotisations/{due.id}/declarer", data={
            "csrf": csrf, "idempotency_key": KEY.search(form.text).group(1), "montant": "2000", "methode": methode,
            "reference": reference})
        assert declared.status_code == 303, declared.text
        ids.append(str((await db.execute(select(Paiement.id).where(
            Paiement.membre_id == membre.membre.id, Paiement.methode == methode))).scalar_one()))
    assert (await db.execute(select(func.count()).select_from(WaveCheckout))).scalar_one() == 0
    # A method the counter does not offer (a card, declared through the API) stays selected: confirming without
    # touching the form never changes the method.
    carte = await cotisation(db, membre.membre, org, 500)
    assert (await client.put(f"/api/cotisations/{carte.id}/payer", headers=membre.headers, json={
        "montant": "500", "methodePaiement": "CARTE", "referencePaiement": "CB-1"})).status_code == 200
    client.cookies.clear()
    csrf = await sign_in(client, tresorier, db)
    liste = await client.get("/console/declarations")
    assert liste.status_code == 200 and TRANSACTION in liste.text and "Wave du bureau" in liste.text
    assert '<option value="CARTE" selected>' in liste.text
    assert len(set(re.findall(r"/console/declarations/([0-9a-f-]+)/confirmer", liste.text)) & set(ids)) == 2
    key = KEY.search(liste.text).group(1)
    done = await client.post(f"/console/declarations/{ids[0]}/confirmer", data={
        "csrf": csrf, "idempotency_key": f"{key}-{ids[0]}", "methode": "WAVE_TRANSFERT", "tresorerie": ""})
    assert done.status_code == 303, done.text
    assert await solde(db, org, "52151") == Decimal("2000")
    corrected = await client.post(f"/console/declarations/{ids[1]}/confirmer", data={
        "csrf": csrf, "idempotency_key": f"{key}-{ids[1]}", "methode": "WAVE_TRANSFERT", "reference": TRANSACTION,
        "tresorerie": wave["id"]})
    assert corrected.status_code == 303, corrected.text
    assert await solde(db, org, "52151") == Decimal("4000") and await solde(db, org, "571") == 0
    page = await client.get(corrected.headers["location"])
    assert "Transfert Wave (corrigée à la confirmation; déclarée: Autre)" in page.text
    texte = pdf_text((await client.get(corrected.headers["location"] + "/recu")).content)
    assert "déclaré : Autre moyen de paiement" in texte and "Wave du bureau (52151)" in texte
