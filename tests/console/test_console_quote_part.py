"""The quote-part to the federation from the console: the payouts page offers it to a member organisation's
treasury (the API's operation, ``POST /api/federations/quotes-parts``, under the form's key), a second person
confirms it there like any payout, and the federation receives it with its own receipt."""

from __future__ import annotations

from decimal import Decimal

from sqlalchemy import select

from tests.console.connexion import KEY, sign_in
from tests.factories.federation import reseau
from tests.factories.paiements import encaisser
from tests.factories.tresoreries import declarer
from tests.livres import lignes_par_compte
from unionflow.models import CleIdempotence, Versement


async def test_quote_part_prepared_in_the_console_and_confirmed_by_a_second_person(client, factory, db):
    r = await reseau(factory)
    await encaisser(client, db, r.mutuelle, r.tresorier, r.membres[0], "10000", methode="ESPECES")
    caisse = (await client.post("/api/tresoreries", headers=r.tresorier.headers,
                                json=declarer(r.mutuelle, "CAISSE", "Caisse", "571"))).json()
    csrf = await sign_in(client, r.tresorier, db)
    page = await client.get("/console/versements")
    assert f"Quote-part à {r.federation.nom}" in page.text, page.text[-3000:]
    key = KEY.findall(page.text)[-1]
    assert key.endswith("-qp")
    posted = await client.post("/console/versements/quote-part", data={
        "csrf": csrf, "idempotency_key": key, "montant": "2 000", "motif": "Quote-part 2026, 1er trimestre",
        "mode": "MANUEL", "tresorerie": caisse["id"]})
    assert posted.status_code == 303, posted.text
    versement = (await db.execute(select(Versement).where(Versement.objet_type == "QUOTE_PART"))).scalar_one()
    assert versement.organisation_destinataire_id == r.federation.id and versement.statut == "EN_COURS"
    assert versement.tresorerie_id is not None and str(versement.tresorerie_id) == caisse["id"]
    stored = (await db.execute(select(CleIdempotence).where(CleIdempotence.cle == key))).scalar_one()
    assert stored.operation == "POST /api/federations/quotes-parts" and stored.statut_reponse == 201
    # The same form posted again (a double click) is the first answer, not a second quote-part.
    again = await client.post("/console/versements/quote-part", data={
        "csrf": csrf, "idempotency_key": key, "montant": "2 000", "motif": "Quote-part 2026, 1er trimestre",
        "mode": "MANUEL", "tresorerie": caisse["id"]})
    assert again.status_code == 303
    assert len((await db.execute(select(Versement).where(Versement.objet_type == "QUOTE_PART"))).all()) == 1
    # Its preparer cannot confirm it; the organisation's administrator does, from the same page.
    own = await client.post(f"/console/versements/{versement.id}/confirmer", data={
        "csrf": csrf, "idempotency_key": f"{key}-c", "reference": "DECHARGE-QP"})
    assert own.status_code == 403, own.text
    csrf = await sign_in(client, r.second, db)
    done = await client.post(f"/console/versements/{versement.id}/confirmer", data={
        "csrf": csrf, "idempotency_key": f"{key}-c2", "reference": "DECHARGE-QP"})
    assert done.status_code == 303, done.text
    await db.refresh(versement)
    assert versement.statut == "REUSSI" and versement.numero_recu_destinataire.startswith("QPR-")
    two = Decimal("2000.00")
    assert await lignes_par_compte(db, r.mutuelle, versement.numero) == {"6584": (two, 0), "571": (0, two)}
    assert await lignes_par_compte(db, r.federation, versement.numero) == {"521": (two, 0), "7584": (0, two)}


async def test_no_quote_part_form_without_a_federation_and_the_api_reason_when_forced(client, factory, db):
    lone = await factory.organisation()
    treasurer = await factory.actor(["USER"], organisation=lone, org_roles=["MEMBRE", "TRESORIER"])
    csrf = await sign_in(client, treasurer, db)
    page = await client.get("/console/versements")
    assert page.status_code == 200 and "Quote-part à" not in page.text
    forced = await client.post("/console/versements/quote-part", data={
        "csrf": csrf, "idempotency_key": "qp-force-1", "montant": "1000", "motif": "Quote-part", "mode": "MANUEL"})
    assert forced.status_code == 400 and "fédération" in forced.text
    assert (await db.execute(select(Versement))).first() is None


async def test_a_member_cannot_prepare_a_quote_part(client, factory, db):
    r = await reseau(factory)
    csrf = await sign_in(client, r.membres[0], db)
    forced = await client.post("/console/versements/quote-part", data={
        "csrf": csrf, "idempotency_key": "qp-membre-1", "montant": "1000", "motif": "Quote-part", "mode": "MANUEL"})
    assert forced.status_code == 403
    assert (await db.execute(select(Versement))).first() is None
