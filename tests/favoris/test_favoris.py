from __future__ import annotations

import uuid

from sqlalchemy import select, update

from tests.documents.fichiers import PDF_BYTES
from tests.factories.documents import upload
from tests.factories.evenements import create_event
from unionflow.models import AuditLog, Favori, Organisation


async def add(client, actor, type_cible, cible_id):
    return await client.post("/api/favoris", headers=actor.headers,
                             json={"typeCible": type_cible, "cibleId": str(cible_id)})


async def test_add_list_check_and_remove_each_target_type(client, factory, db):
    org = await factory.organisation(nom="Mutuelle des Enseignants")
    organiser = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "SECRETAIRE"])
    event = await create_event(client, organiser.headers, org.id, titre="Assemblée générale 2026")
    doc = (await upload(client, organiser.headers, PDF_BYTES, filename="statuts.pdf")).json()
    colleague = await factory.membre(org, prenom="Moussa", nom="Ndiaye")

    created = {}
    for type_cible, cible_id, libelle in (("EVENEMENT", event["id"], "Assemblée générale 2026"),
                                          ("ORGANISATION", org.id, "Mutuelle des Enseignants"),
                                          ("DOCUMENT", doc["id"], "statuts.pdf"),
                                          ("MEMBRE", colleague.id, "Moussa Ndiaye")):
        response = await add(client, organiser, type_cible, cible_id)
        assert response.status_code == 201, response.text
        assert response.json()["libelle"] == libelle and response.json()["disponible"] is True
        created[type_cible] = response.json()["id"]

    listing = await client.get("/api/favoris", headers=organiser.headers)
    assert listing.json()["totalElements"] == 4
    events = await client.get("/api/favoris", headers=organiser.headers, params={"typeCible": "EVENEMENT"})
    assert [f["cibleId"] for f in events.json()["content"]] == [event["id"]]
    assert (await client.get("/api/favoris", headers=organiser.headers,
                             params={"typeCible": "PAIEMENT"})).status_code == 400

    status = await client.get("/api/favoris/statut", headers=organiser.headers,
                              params={"typeCible": "DOCUMENT", "cibleId": doc["id"]})
    assert status.json() == {"favori": True, "id": created["DOCUMENT"]}
    removed = await client.delete(f"/api/favoris/{created['DOCUMENT']}", headers=organiser.headers)
    assert removed.status_code == 204
    status = await client.get("/api/favoris/statut", headers=organiser.headers,
                              params={"typeCible": "DOCUMENT", "cibleId": doc["id"]})
    assert status.json() == {"favori": False, "id": None}
    actions = set((await db.execute(select(AuditLog.type_action).where(AuditLog.module == "FAVORIS",
                                                                       AuditLog.utilisateur == organiser.user.email)
                   )).scalars())
    assert actions == {"CREER", "SUPPRIMER"}


async def test_duplicates_are_refused(client, factory, db):
    org = await factory.organisation()
    member = await factory.actor(["USER"], organisation=org)
    assert (await add(client, member, "ORGANISATION", org.id)).status_code == 201
    assert (await add(client, member, "ORGANISATION", org.id)).status_code == 409
    count = len((await db.execute(select(Favori).where(Favori.cible_id == org.id))).scalars().all())
    assert count == 1
    # Another user's favourite of the same target is theirs alone.
    other = await factory.actor(["USER"], organisation=org)
    assert (await add(client, other, "ORGANISATION", org.id)).status_code == 201


async def test_only_visible_targets_and_own_favourites(client, factory, db):
    org = await factory.organisation()
    other_org = await factory.organisation()
    member = await factory.actor(["USER"], organisation=org)
    outsider = await factory.actor(["USER"], organisation=other_org)
    organiser = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "SECRETAIRE"])
    members_only = await create_event(client, organiser.headers, org.id, visibilite="MEMBRES")
    private_doc = (await upload(client, organiser.headers, PDF_BYTES)).json()
    neighbour = await factory.membre(org)
    suspended = await factory.organisation(statut="SUSPENDUE")

    assert (await add(client, outsider, "EVENEMENT", members_only["id"])).status_code == 404
    assert (await add(client, member, "EVENEMENT", members_only["id"])).status_code == 201
    assert (await add(client, member, "DOCUMENT", private_doc["id"])).status_code == 404
    # A plain member sees their own record only, not other members' files.
    assert (await add(client, member, "MEMBRE", neighbour.id)).status_code == 404
    assert (await add(client, member, "MEMBRE", member.membre.id)).status_code == 201
    assert (await add(client, member, "ORGANISATION", suspended.id)).status_code == 404
    assert (await add(client, member, "ORGANISATION", uuid.uuid4())).status_code == 404
    assert (await client.post("/api/favoris", headers=member.headers,
                              json={"typeCible": "ORGANISATION", "cibleId": str(org.id), "note": 1})).status_code == 400

    mine = (await add(client, member, "ORGANISATION", org.id)).json()
    assert (await client.delete(f"/api/favoris/{mine['id']}", headers=outsider.headers)).status_code == 404
    assert (await client.get("/api/favoris", headers=outsider.headers)).json()["totalElements"] == 0

    # A target that becomes invisible stays listed, flagged and without its name.
    followed = (await add(client, member, "ORGANISATION", other_org.id)).json()
    assert followed["disponible"] is True and followed["libelle"] == other_org.nom
    await db.execute(update(Organisation).where(Organisation.id == other_org.id).values(statut="SUSPENDUE"))
    listing = (await client.get("/api/favoris", headers=member.headers,
                                params={"typeCible": "ORGANISATION"})).json()["content"]
    gone = next(f for f in listing if f["cibleId"] == str(other_org.id))
    assert gone["disponible"] is False and gone["libelle"] is None
    assert (await client.delete(f"/api/favoris/{gone['id']}", headers=member.headers)).status_code == 204
