"""Events in the console: the secretary creates one, members register, the full event queues them on the waiting
list, a cancellation promotes the first in line; a member cannot create nor see the queue's names; an event out of
sight is the 404 page. All through the events area's services (tests/evenements test the rules themselves)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from sqlalchemy import func, select

from tests.console.connexion import sign_in
from tests.factories.evenements import create_event
from unionflow.models import Evenement, InscriptionEvenement


def _moment(days: int, hours: int = 0) -> str:
    return (datetime.now(UTC) + timedelta(days=days, hours=hours)).strftime("%Y-%m-%dT%H:%M")


async def _evenements(db) -> int:
    return int((await db.execute(select(func.count()).select_from(Evenement))).scalar_one())


async def _as(client, actor, db) -> str:
    client.cookies.clear()
    return await sign_in(client, actor, db)


async def test_secretary_creates_an_event_and_follows_the_waiting_list_and_its_promotion(client, factory, db):
    org = await factory.organisation()
    secretaire = await factory.actor(organisation=org, org_roles=["MEMBRE", "SECRETAIRE"])
    awa = await factory.actor(organisation=org, org_roles=["MEMBRE"])
    moussa = await factory.actor(organisation=org, org_roles=["MEMBRE"])
    csrf = await _as(client, secretaire, db)
    liste = await client.get("/console/evenements")
    assert liste.status_code == 200 and 'action="/console/evenements"' in liste.text
    assert 'value="ASSEMBLEE_GENERALE"' in liste.text  # the active types of the reference table
    created = await client.post("/console/evenements", data={
        "csrf": csrf, "titre": "Assemblée générale de Thiès", "type": "ASSEMBLEE_GENERALE", "debut": _moment(10),
        "fin": _moment(10, 3), "lieu": "Maison des jeunes", "capacite": "1", "attente": "1",
        "visibilite": "MEMBRES"})
    assert created.status_code == 303, created.text
    evt_path = created.headers["location"].split("?")[0]
    evt_id = evt_path.rsplit("/", 1)[1]

    csrf = await _as(client, awa, db)
    listed = await client.get("/console/evenements")
    assert "Assemblée générale de Thiès" in listed.text and 'action="/console/evenements"' not in listed.text
    first = await client.post(f"/console/evenements/{evt_id}/inscription", data={"csrf": csrf})
    assert first.status_code == 303 and first.headers["location"].endswith("fait=inscrit")
    mine = await client.get(evt_path)
    assert "Vous êtes inscrit" in mine.text and 'id="liste-attente"' not in mine.text

    csrf = await _as(client, moussa, db)
    second = await client.post(f"/console/evenements/{evt_id}/inscription", data={"csrf": csrf})
    assert second.status_code == 303 and second.headers["location"].endswith("fait=attente")
    queued = await client.get(f"{evt_path}?fait=attente")
    assert "liste d'attente, rang 1" in queued.text and "complet" in queued.text

    await _as(client, secretaire, db)
    fiche = await client.get(evt_path)
    participants = fiche.text.split('id="participants"', 1)[1].split("</ol>", 1)[0]
    attente = fiche.text.split('id="liste-attente"', 1)[1].split("</ol>", 1)[0]
    assert awa.membre.prenom in participants and moussa.membre.numero_membre in attente

    csrf = await _as(client, awa, db)
    cancelled = await client.post(f"/console/evenements/{evt_id}/desinscription", data={"csrf": csrf})
    assert cancelled.status_code == 303

    await _as(client, secretaire, db)
    fiche = await client.get(evt_path)
    participants = fiche.text.split('id="participants"', 1)[1].split("</ol>", 1)[0]
    assert moussa.membre.numero_membre in participants and awa.membre.numero_membre not in participants
    assert "Personne en attente" in fiche.text
    statuts = {i.membre_id: i.statut for i in (await db.execute(select(InscriptionEvenement))).scalars()}
    assert statuts == {awa.membre.id: "ANNULEE", moussa.membre.id: "CONFIRMEE"}


async def test_member_may_not_create_an_event_nor_register_without_the_form_token(client, factory, db):
    org = await factory.organisation()
    organisateur = await factory.actor(organisation=org, org_roles=["MEMBRE", "SECRETAIRE"])
    evt = await create_event(client, organisateur.headers, org.id)
    membre = await factory.actor(organisation=org, org_roles=["MEMBRE"])
    csrf = await sign_in(client, membre, db)
    before = await _evenements(db)
    forced = await client.post("/console/evenements", data={
        "csrf": csrf, "titre": "Fête forcée", "type": "ASSEMBLEE_GENERALE", "debut": _moment(5),
        "fin": _moment(5, 2)})
    assert forced.status_code == 403 and "Accès refusé" in forced.text
    assert await _evenements(db) == before
    no_csrf = await client.post(f"/console/evenements/{evt['id']}/inscription", data={})
    assert no_csrf.status_code == 403 and "CSRF" in no_csrf.text
    count = await db.execute(select(func.count()).select_from(InscriptionEvenement))
    assert count.scalar_one() == 0
    fiche = await client.get(f"/console/evenements/{evt['id']}")
    assert fiche.status_code == 200 and f"/evenements/{evt['id']}/inscription" in fiche.text
    assert 'id="liste-attente"' not in fiche.text


async def test_an_event_out_of_sight_is_the_404_page_as_in_the_api(client, factory, db):
    org, other = await factory.organisation(), await factory.organisation()
    organisateur = await factory.actor(organisation=other, org_roles=["MEMBRE", "SECRETAIRE"])
    hidden = await create_event(client, organisateur.headers, other.id, visibilite="MEMBRES")
    membre = await factory.actor(organisation=org, org_roles=["MEMBRE"])
    api = await client.get(f"/api/evenements/{hidden['id']}", headers=membre.headers)
    assert api.status_code == 404
    csrf = await sign_in(client, membre, db)
    page = await client.get(f"/console/evenements/{hidden['id']}")
    assert page.status_code == 404 and "Page introuvable" in page.text
    assert hidden["titre"] not in (await client.get("/console/evenements")).text
    forced = await client.post(f"/console/evenements/{hidden['id']}/inscription", data={"csrf": csrf})
    assert forced.status_code == 404
    assert re.search(r"Page introuvable", forced.text)
