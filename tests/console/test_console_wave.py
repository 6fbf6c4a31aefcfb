"""A member pays a dues by Wave from his account page: the console opens a checkout through the Wave checkout
service (against the loopback Wave server of tests/wave) and sends the browser to Wave's launch URL. Nothing is
credited until Wave's signed webhook confirms it (tests/wave)."""

from __future__ import annotations

from sqlalchemy import select

from tests.console.connexion import KEY, sign_in
from tests.factories.cotisations import cotisation
from tests.wave.fake_wave import fake_wave_server, wave  # noqa: F401 - fixtures
from unionflow.models import Paiement, WaveCheckout


async def test_member_pays_a_dues_by_wave_and_is_sent_to_the_launch_url(client, factory, db, wave):  # noqa: F811
    org = await factory.organisation()
    membre = await factory.actor(organisation=org, org_roles=["MEMBRE"])
    due = await cotisation(db, membre.membre, org, 5000)
    csrf = await sign_in(client, membre, db)
    moi = await client.get("/console/moi")
    assert f'action="/console/moi/cotisations/{due.id}/wave"' in moi.text and "Payer par Wave" in moi.text
    # The form's post is redirected to Wave: the page's CSP lets that one origin receive it.
    assert "form-action 'self' https://pay.wave.com" in moi.headers["content-security-policy"]
    key = KEY.search(moi.text).group(1)
    paid = await client.post(f"/console/moi/cotisations/{due.id}/wave", data={"csrf": csrf, "idempotency_key": key})
    assert paid.status_code == 303, paid.text
    launch = paid.headers["location"]
    assert launch.startswith("https://pay.wave.com/c/")
    checkout = (await db.execute(select(WaveCheckout))).scalar_one()
    assert checkout.launch_url == launch and checkout.montant == 5000
    assert wave.sessions[checkout.checkout_id]["client_reference"] == str(checkout.paiement_id)
    paiement = await db.get(Paiement, checkout.paiement_id)
    assert paiement.statut == "EN_ATTENTE" and paiement.methode == "WAVE"  # money only when Wave confirms
    again = await client.post(f"/console/moi/cotisations/{due.id}/wave", data={"csrf": csrf, "idempotency_key": key})
    assert again.status_code == 303 and again.headers["location"] == launch  # a double click: the same session
    assert len((await db.execute(select(WaveCheckout))).scalars().all()) == 1


async def test_wave_checkout_of_someone_else_s_dues_or_without_the_token_is_refused(client, factory, db,
                                                                                   wave):  # noqa: F811
    org = await factory.organisation()
    membre = await factory.actor(organisation=org, org_roles=["MEMBRE"])
    autre = await factory.membre(org)
    due = await cotisation(db, autre, org, 5000)
    csrf = await sign_in(client, membre, db)
    other = await client.post(f"/console/moi/cotisations/{due.id}/wave", data={"csrf": csrf, "idempotency_key": "k1"})
    assert other.status_code == 404 and "Page introuvable" in other.text
    mine = await cotisation(db, membre.membre, org, 3000)
    forged = await client.post(f"/console/moi/cotisations/{mine.id}/wave", data={"idempotency_key": "k2"})
    assert forged.status_code == 403 and "CSRF" in forged.text
    assert (await db.execute(select(WaveCheckout))).first() is None and not wave.sessions
