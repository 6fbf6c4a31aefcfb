"""An action the person may not do is not offered on the page, and refused (403 page, nothing changed) if forced.

Each case posts the real form of the action, with a valid CSRF token of the person's own session, as a person
who edits the page or replays a colleague's request would.
"""

from __future__ import annotations

import re

from sqlalchemy import func, select

from tests.console.connexion import KEY, sign_in
from tests.factories.cotisations import adhesion, cotisation
from unionflow.models import Adhesion, Paiement


async def _paiements(db) -> int:
    return int((await db.execute(select(func.count()).select_from(Paiement))).scalar_one())


async def _declared(client, factory, db, org):
    """A member's declared payment (through his own console page), then his cookies dropped."""
    membre = await factory.actor(organisation=org, org_roles=["MEMBRE"])
    due = await cotisation(db, membre.membre, org, 3000)
    csrf = await sign_in(client, membre, db)
    form = await client.get(f"/console/moi/cotisations/{due.id}/declarer")
    declared = await client.post(f"/console/moi/cotisations/{due.id}/declarer", data={
        "csrf": csrf, "idempotency_key": KEY.search(form.text).group(1), "montant": "3000", "methode": "VIREMENT"})
    assert declared.status_code == 303, declared.text
    client.cookies.clear()
    return (await db.execute(select(Paiement).where(Paiement.membre_id == membre.membre.id))).scalar_one()


def _refused(response) -> None:
    assert response.status_code == 403, response.text
    assert response.headers["content-type"].startswith("text/html") and "Accès refusé" in response.text


async def test_member_forcing_the_counter_payment_form_is_refused(client, factory, db):
    org = await factory.organisation()
    membre = await factory.actor(organisation=org, org_roles=["MEMBRE"])
    autre = await factory.membre(org)
    due = await cotisation(db, autre, org, 5000)
    csrf = await sign_in(client, membre, db)
    before = await _paiements(db)
    moi = await client.get("/console/moi")
    assert "/encaisser" not in moi.text and "/tresorerie" not in moi.text and "/declarations" not in moi.text
    _refused(await client.get(f"/console/membres/{autre.id}/encaisser"))
    forced = await client.post(f"/console/membres/{autre.id}/encaisser", data={
        "csrf": csrf, "idempotency_key": "forced-1", "cotisation": str(due.id), "montant": "5000",
        "methode": "ESPECES"})
    _refused(forced)
    assert await _paiements(db) == before
    await db.refresh(due)
    assert due.statut == "EN_ATTENTE"


async def test_secretary_confirming_or_rejecting_a_declaration_is_refused(client, factory, db):
    org = await factory.organisation()
    paiement = await _declared(client, factory, db, org)
    secretaire = await factory.actor(organisation=org, org_roles=["MEMBRE", "SECRETAIRE"])
    csrf = await sign_in(client, secretaire, db)
    home = await client.get("/console/membres")
    assert "/console/declarations" not in home.text and "/console/tresorerie" not in home.text
    _refused(await client.get("/console/declarations"))
    _refused(await client.post(f"/console/declarations/{paiement.id}/confirmer", data={
        "csrf": csrf, "idempotency_key": "forced-2", "reference": "X"}))
    _refused(await client.post(f"/console/declarations/{paiement.id}/rejeter", data={
        "csrf": csrf, "motif": "forcé par la secrétaire"}))
    await db.refresh(paiement)
    assert paiement.statut == "EN_ATTENTE"


async def test_president_sees_declarations_without_the_forms_and_is_refused_if_forced(client, factory, db):
    org = await factory.organisation()
    paiement = await _declared(client, factory, db, org)
    president = await factory.actor(organisation=org, org_roles=["MEMBRE", "PRESIDENT"])
    csrf = await sign_in(client, president, db)
    liste = await client.get("/console/declarations")
    assert liste.status_code == 200 and "3\u202f000" in liste.text
    assert "/confirmer" not in liste.text and "/rejeter" not in liste.text
    assert 'method="post"' not in liste.text.split("</header>", 1)[1]
    fiche = await client.get(f"/console/membres/{paiement.membre_id}")
    assert fiche.status_code == 200 and "/encaisser" not in fiche.text
    _refused(await client.post(f"/console/declarations/{paiement.id}/confirmer", data={
        "csrf": csrf, "idempotency_key": "forced-3", "reference": "X"}))
    _refused(await client.post(f"/console/declarations/{paiement.id}/rejeter", data={
        "csrf": csrf, "motif": "forcé par le président"}))
    await db.refresh(paiement)
    assert paiement.statut == "EN_ATTENTE"


async def test_member_approving_an_adhesion_is_refused(client, factory, db):
    org = await factory.organisation()
    candidat = await factory.membre(org)
    demande = await adhesion(db, candidat, org, statut="EN_ATTENTE")
    membre = await factory.actor(organisation=org, org_roles=["MEMBRE"])
    csrf = await sign_in(client, membre, db)
    page = await client.get("/console/adhesions")
    assert page.status_code == 200 and "/approuver" not in page.text and "/rejeter" not in page.text
    _refused(await client.post(f"/console/adhesions/{demande.id}/approuver", data={"csrf": csrf}))
    _refused(await client.post(f"/console/adhesions/{demande.id}/rejeter", data={"csrf": csrf, "motif": "non"}))
    await db.refresh(demande)
    assert demande.statut == "EN_ATTENTE" and demande.date_approbation is None


async def test_secretary_sees_no_approval_button_and_is_refused_if_forced(client, factory, db):
    """The secretary holds adhesion.decider, but the API's RS-APPROVE role set does not admit her: neither does
    the console (the stricter of the two gates, as in the API)."""
    org = await factory.organisation()
    demande = await adhesion(db, await factory.membre(org), org, statut="EN_ATTENTE")
    secretaire = await factory.actor(organisation=org, org_roles=["MEMBRE", "SECRETAIRE"])
    csrf = await sign_in(client, secretaire, db)
    page = await client.get("/console/adhesions")
    assert page.status_code == 200 and demande.numero_reference in page.text and "/approuver" not in page.text
    _refused(await client.post(f"/console/adhesions/{demande.id}/approuver", data={"csrf": csrf}))
    await db.refresh(demande)
    assert demande.statut == "EN_ATTENTE"
    count = (await db.execute(select(func.count()).select_from(Adhesion).where(Adhesion.statut != "EN_ATTENTE")))
    assert count.scalar_one() == 0


async def test_member_forcing_the_import_is_refused_and_nothing_is_created(client, factory, db):
    org = await factory.organisation()
    membre = await factory.actor(organisation=org, org_roles=["MEMBRE"])
    csrf = await sign_in(client, membre, db)
    assert "/console/import" not in (await client.get("/console/moi")).text
    import base64

    contenu = base64.b64encode("prénom;nom;email\nAwa;Diop;awa.diop@example.sn\n".encode()).decode()
    _refused(await client.post("/console/import", data={"csrf": csrf, "contenu": contenu}))
    listed = await client.get("/console/membres?q=diop")
    assert listed.status_code == 403
    from unionflow.models import Membre

    assert not (await db.execute(select(Membre).where(Membre.email == "awa.diop@example.sn"))).first()


async def test_menu_offers_only_the_screens_of_the_role(client, factory, db):
    org = await factory.organisation()
    tresorier = await factory.actor(organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    await sign_in(client, tresorier, db)
    board = await client.get("/console/tresorerie")
    links = set(re.findall(r'<li><a href="(/console/[a-z/]+)"', board.text))
    assert {"/console/tresorerie", "/console/declarations", "/console/moi"} <= links
    assert "/console/import" not in links


async def test_forged_non_ascii_csrf_token_is_the_403_page_not_an_error(client, factory, db):
    org = await factory.organisation()
    membre = await factory.actor(organisation=org, org_roles=["MEMBRE"])
    await sign_in(client, membre, db)
    forged = await client.post("/console/contexte", data={"csrf": "jéton-forgé", "organisation": str(org.id)})
    assert forged.status_code == 403 and "CSRF" in forged.text
