from __future__ import annotations

import uuid
from datetime import date, timedelta

from sqlalchemy import select

from tests.factories.finance import demande_aide
from unionflow.models import AuditLog

URL = "/api/propositions-aide"


async def _org(factory):
    org = await factory.organisation()
    return org, {
        "offreur": await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"]),
        "voisin": await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"]),
        "secretaire": await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "SECRETAIRE"]),
    }


def _offre(org, **extra):
    return {"organisationId": str(org.id), "type": "DECES", "nature": "FINANCIERE", "titre": "Soutien obsèques",
            "description": "Je peux contribuer aux frais d'obsèques", "montant": "25000",
            "disponibilite": "Immédiatement", **extra}


async def test_create_rules_and_visibility(client, factory, db):
    org, a = await _org(factory)
    created = await client.post(URL, headers=a["offreur"].headers, json=_offre(org))
    assert created.status_code == 201, created.text
    body = created.json()
    assert (body["statut"], body["type"], body["montant"], body["devise"]) == ("ACTIVE", "DECES", "25000.00", "XOF")
    assert body["membreId"] == str(a["offreur"].membre.id) and body["numeroReference"].startswith("PROP-")
    assert (await client.post(URL, headers=a["offreur"].headers, json=_offre(org, montant=None))).status_code == 400
    service = await client.post(URL, headers=a["offreur"].headers,
                                json=_offre(org, nature="SERVICE", montant=None, type="MALADIE",
                                            titre="Transport à l'hôpital"))
    assert service.status_code == 201
    assert (await client.post(URL, headers=a["offreur"].headers, json=_offre(org, type="LOTO"))).status_code == 400
    past = (date.today() - timedelta(days=1)).isoformat()
    assert (await client.post(URL, headers=a["offreur"].headers,
                              json=_offre(org, disponibleJusquAu=past))).status_code == 400
    assert (await client.post(URL, headers=a["offreur"].headers,
                              json=_offre(org, statut="RESERVEE"))).status_code == 400
    other = await factory.organisation()
    assert (await client.post(URL, headers=a["offreur"].headers,
                              json=_offre(other))).status_code == 400
    assert (await client.post(URL, headers=a["offreur"].headers,
                              json=_offre(org, organisationId=str(uuid.uuid4())))).status_code == 404
    admin = await factory.actor(["ADMIN"], with_membre=False)
    assert (await client.post(URL, headers=admin.headers, json=_offre(org))).status_code == 400
    anonymous = await client.post(URL, json=_offre(org))
    assert anonymous.status_code == 401

    # Neighbours see the active offers of their organisation; outsiders see nothing.
    seen = await client.get(URL, headers=a["voisin"].headers, params={"type": "DECES"})
    assert [p["id"] for p in seen.json()["content"]] == [body["id"]]
    assert (await client.get(URL, headers=a["voisin"].headers, params={"mesPropositions": True})
            ).json()["totalElements"] == 0
    outsider = await factory.actor(["USER"], organisation=other, org_roles=["MEMBRE"])
    assert (await client.get(f"{URL}/{body['id']}", headers=outsider.headers)).status_code == 404
    assert (await client.get(URL, headers=outsider.headers)).json()["totalElements"] == 0

    # Only the author edits, while ACTIVE.
    assert (await client.put(f"{URL}/{body['id']}", headers=a["voisin"].headers,
                             json={"titre": "Autre"})).status_code == 403
    edited = await client.put(f"{URL}/{body['id']}", headers=a["offreur"].headers, json={"montant": "30000"})
    assert edited.json()["montant"] == "30000.00"
    assert (await client.put(f"{URL}/{body['id']}", headers=a["offreur"].headers,
                             json={"nature": None})).status_code == 400
    actions = list((await db.execute(select(AuditLog.type_action).where(AuditLog.entite_id == body["id"])
                                     .order_by(AuditLog.date_heure))).scalars())
    assert actions == ["CREER", "MODIFIER"]


async def test_matching_link_release_and_close(client, factory, db):
    org, a = await _org(factory)
    offre = (await client.post(URL, headers=a["offreur"].headers, json=_offre(org))).json()
    demandeur = await factory.membre(org)
    urgente = await demande_aide(db, org, demandeur, statut="SOUMISE", accorde=None)
    urgente.urgence = "CRITIQUE"
    ancienne = await demande_aide(db, org, demandeur, statut="APPROUVEE")
    ancienne.urgence = "FAIBLE"
    await demande_aide(db, org, demandeur, statut="REJETEE")
    await demande_aide(db, org, demandeur, type_aide="MALADIE", statut="SOUMISE")
    propre = await demande_aide(db, org, a["offreur"].membre, statut="SOUMISE")
    other = await factory.organisation()
    await demande_aide(db, other, await factory.membre(other), statut="SOUMISE")
    await db.flush()

    url = f"{URL}/{offre['id']}"
    assert (await client.get(f"{url}/correspondances", headers=a["voisin"].headers)).status_code == 403
    matches = await client.get(f"{url}/correspondances", headers=a["secretaire"].headers)
    assert matches.status_code == 200, matches.text
    assert [d["id"] for d in matches.json()] == [str(urgente.id), str(ancienne.id)]
    assert matches.headers["X-Total-Count"] == "2"
    reverse = await client.get(f"{URL}/demande/{urgente.id}", headers=a["secretaire"].headers)
    assert [p["id"] for p in reverse.json()] == [offre["id"]]

    assert (await client.post(f"{url}/lier", headers=a["offreur"].headers,
                              json={"demandeAideId": str(urgente.id)})).status_code == 403
    own = await client.post(f"{url}/lier", headers=a["secretaire"].headers, json={"demandeAideId": str(propre.id)})
    assert own.status_code == 400
    linked = await client.post(f"{url}/lier", headers=a["secretaire"].headers,
                               json={"demandeAideId": str(urgente.id)})
    assert linked.status_code == 200, linked.text
    assert (linked.json()["statut"], linked.json()["demandeAideId"]) == ("RESERVEE", str(urgente.id))
    # A reserved offer leaves the neighbours' board, and the request is covered.
    assert (await client.get(url, headers=a["voisin"].headers)).status_code == 404
    second = (await client.post(URL, headers=a["voisin"].headers, json=_offre(org))).json()
    taken = await client.post(f"{URL}/{second['id']}/lier", headers=a["secretaire"].headers,
                              json={"demandeAideId": str(urgente.id)})
    assert taken.status_code == 409
    covered = await client.get(f"{URL}/{second['id']}/correspondances", headers=a["secretaire"].headers)
    # The first author's own request is a match for somebody else's offer.
    assert [d["id"] for d in covered.json()] == [str(propre.id), str(ancienne.id)]
    assert (await client.put(url, headers=a["offreur"].headers, json={"titre": "Nouveau"})).status_code == 400
    assert (await client.post(f"{url}/lier", headers=a["secretaire"].headers,
                              json={"demandeAideId": str(ancienne.id)})).status_code == 400

    released = await client.post(f"{url}/liberer", headers=a["offreur"].headers)
    assert (released.json()["statut"], released.json()["demandeAideId"]) == ("ACTIVE", None)
    assert (await client.post(f"{url}/liberer", headers=a["offreur"].headers)).status_code == 400
    relinked = await client.post(f"{url}/lier", headers=a["secretaire"].headers,
                                 json={"demandeAideId": str(ancienne.id)})
    assert relinked.json()["statut"] == "RESERVEE"
    assert (await client.post(f"{url}/cloturer", headers=a["voisin"].headers)).status_code == 404
    closed = await client.post(f"{url}/cloturer", headers=a["secretaire"].headers, json={"motif": "Aide remise"})
    assert (closed.json()["statut"], closed.json()["demandeAideId"]) == ("CLOTUREE", str(ancienne.id))
    assert (await client.post(f"{url}/cloturer", headers=a["offreur"].headers)).status_code == 400
    assert (await client.get(f"{url}/correspondances", headers=a["secretaire"].headers)).json() == []
    actions = list((await db.execute(select(AuditLog.type_action).where(AuditLog.entite_id == offre["id"])
                                     .order_by(AuditLog.date_heure))).scalars())
    assert actions == ["CREER", "RESERVER", "LIBERER", "RESERVER", "CLORE"]


async def test_link_refuses_other_type_organisation_and_closed_requests(client, factory, db):
    org, a = await _org(factory)
    offre = (await client.post(URL, headers=a["offreur"].headers, json=_offre(org))).json()
    demandeur = await factory.membre(org)
    maladie = await demande_aide(db, org, demandeur, type_aide="MALADIE", statut="SOUMISE")
    rejetee = await demande_aide(db, org, demandeur, statut="REJETEE")
    other = await factory.organisation()
    ailleurs = await demande_aide(db, other, await factory.membre(other), statut="SOUMISE")
    link = f"{URL}/{offre['id']}/lier"
    h = a["secretaire"].headers
    assert (await client.post(link, headers=h, json={"demandeAideId": str(maladie.id)})).status_code == 400
    assert (await client.post(link, headers=h, json={"demandeAideId": str(rejetee.id)})).status_code == 400
    assert (await client.post(link, headers=h, json={"demandeAideId": str(ailleurs.id)})).status_code == 404
    assert (await client.post(link, headers=h, json={"demandeAideId": str(uuid.uuid4())})).status_code == 404
    assert (await client.post(link, headers=h, json={})).status_code == 400
    assert (await client.post(f"{URL}/{uuid.uuid4()}/lier", headers=h,
                              json={"demandeAideId": str(maladie.id)})).status_code == 404
    assert (await client.get(f"{URL}/demande/{ailleurs.id}", headers=h)).status_code == 404
    outsider_staff = await factory.actor(["USER"], organisation=other, org_roles=["MEMBRE", "SECRETAIRE"])
    assert (await client.get(f"{URL}/{offre['id']}/correspondances",
                             headers=outsider_staff.headers)).status_code == 404
    admin = await factory.actor(["ADMIN"], with_membre=False)
    assert (await client.post(link, headers=admin.headers, json={"demandeAideId": str(maladie.id)})).status_code == 400
    assert (await client.get(URL, headers=admin.headers, params={"statut": "ACTIVE", "organisationId": str(org.id)})
            ).json()["totalElements"] == 1


async def test_expired_offer_is_neither_matched_nor_linked(client, factory, db):
    from sqlalchemy import update

    from unionflow.models import PropositionAide

    org, a = await _org(factory)
    offre = (await client.post(URL, headers=a["offreur"].headers,
                               json=_offre(org, disponibleJusquAu=date.today().isoformat()))).json()
    demande = await demande_aide(db, org, await factory.membre(org), statut="SOUMISE")
    h = a["secretaire"].headers
    assert [p["id"] for p in (await client.get(f"{URL}/demande/{demande.id}", headers=h)).json()] == [offre["id"]]
    await db.execute(update(PropositionAide).where(PropositionAide.id == uuid.UUID(offre["id"]))
                     .values(disponible_jusqu_au=date.today() - timedelta(days=1)))
    await db.flush()
    assert (await client.get(f"{URL}/demande/{demande.id}", headers=h)).json() == []
    expired = await client.post(f"{URL}/{offre['id']}/lier", headers=h, json={"demandeAideId": str(demande.id)})
    assert expired.status_code == 400 and "expirée" in expired.text


async def test_proposal_types_come_from_the_reference_table(client, factory):
    org, a = await _org(factory)
    admin = await factory.actor(["ADMIN"], with_membre=False)
    assert (await client.post(URL, headers=a["offreur"].headers, json=_offre(org, type="TRANSPORT"))).status_code == 400
    entry = await client.post("/api/types-reference", headers=admin.headers,
                              json={"domaine": "TYPE_AIDE", "code": "TRANSPORT", "libelle": "Transport"})
    assert entry.status_code == 201, entry.text
    created = await client.post(URL, headers=a["offreur"].headers, json=_offre(org, type="TRANSPORT"))
    assert created.status_code == 201, created.text
    listed = await client.get(URL, headers=a["offreur"].headers, params={"type": "TRANSPORT"})
    assert [p["id"] for p in listed.json()["content"]] == [created.json()["id"]]
    await client.put(f"/api/types-reference/{entry.json()['id']}", headers=admin.headers, json={"actif": False})
    refused = await client.post(URL, headers=a["offreur"].headers, json=_offre(org, type="TRANSPORT"))
    assert refused.status_code == 400 and "désactivé" in refused.json()["detail"]
