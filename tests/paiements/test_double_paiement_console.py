"""Issue 28, item 6, on the member's console pages: a dues reserved by his declaration is not offered « Payer par
Wave » (and refused if forced), the page says the declaration awaits the treasurer; a dues with a Wave session in
progress is not offered a declaration."""

from __future__ import annotations

from sqlalchemy import select

from tests.console.connexion import KEY, sign_in
from tests.factories.cotisations import cotisation
from unionflow.models import Paiement


async def test_member_page_offers_no_wave_for_dues_awaiting_the_treasurer(client, factory, db, wave):
    org = await factory.organisation()
    membre = await factory.actor(organisation=org, org_roles=["MEMBRE"])
    december = await cotisation(db, membre.membre, org, 2000)
    january = await cotisation(db, membre.membre, org, 2000)
    csrf = await sign_in(client, membre, db)
    moi = await client.get("/console/moi")
    assert f'action="/console/moi/cotisations/{december.id}/wave"' in moi.text  # offered before

    form = await client.get(f"/console/moi/cotisations/{december.id}/declarer")
    declared = await client.post(f"/console/moi/cotisations/{december.id}/declarer", data={
        "csrf": csrf, "idempotency_key": KEY.search(form.text).group(1), "montant": "2000", "methode": "ESPECES"})
    assert declared.status_code == 303, declared.text
    declaration = (await db.execute(select(Paiement).where(Paiement.membre_id == membre.membre.id))).scalar_one()

    moi = await client.get("/console/moi")
    assert f'action="/console/moi/cotisations/{december.id}/wave"' not in moi.text
    assert f"Déclaration {declaration.reference_declaration}" in moi.text
    assert "en attente de la trésorerie" in moi.text
    assert f"/console/moi/cotisations/{december.id}/declarer" not in moi.text
    # The other dues is still offered both ways.
    assert f'action="/console/moi/cotisations/{january.id}/wave"' in moi.text
    assert f"/console/moi/cotisations/{january.id}/declarer" in moi.text

    # Forced (an old page, a second tab): refused with the reason, Wave never asked.
    forced = await client.post(f"/console/moi/cotisations/{december.id}/wave",
                               data={"csrf": csrf, "idempotency_key": "old-page"})
    assert forced.status_code == 409, forced.text
    assert declaration.reference_declaration in forced.text and "trésorerie" in forced.text
    assert not wave.sessions
    again = await client.get(f"/console/moi/cotisations/{december.id}/declarer")
    assert "attend déjà la trésorerie" in again.text and 'name="montant"' not in again.text


async def test_member_page_offers_no_declaration_while_a_wave_session_is_open(client, factory, db, wave):
    org = await factory.organisation()
    membre = await factory.actor(organisation=org, org_roles=["MEMBRE"])
    dues = await cotisation(db, membre.membre, org, 2000)
    csrf = await sign_in(client, membre, db)
    moi = await client.get("/console/moi")
    paid = await client.post(f"/console/moi/cotisations/{dues.id}/wave",
                             data={"csrf": csrf, "idempotency_key": KEY.search(moi.text).group(1)})
    assert paid.status_code == 303
    session = (await db.execute(select(Paiement).where(Paiement.membre_id == membre.membre.id))).scalar_one()

    moi = await client.get("/console/moi")
    assert f"Paiement Wave {session.reference_declaration} en cours" in moi.text
    assert f"/console/moi/cotisations/{dues.id}/declarer" not in moi.text
    form = await client.get(f"/console/moi/cotisations/{dues.id}/declarer")
    assert "Un paiement Wave" in form.text and 'name="montant"' not in form.text
    forced = await client.post(f"/console/moi/cotisations/{dues.id}/declarer", data={
        "csrf": csrf, "idempotency_key": "forced", "montant": "2000", "methode": "ESPECES"})
    assert forced.status_code == 409 and "Wave" in forced.text
    assert len((await db.execute(select(Paiement).where(Paiement.membre_id == membre.membre.id))).all()) == 1
