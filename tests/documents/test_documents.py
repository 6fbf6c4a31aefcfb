from __future__ import annotations

import uuid
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from urllib.parse import unquote

from sqlalchemy import select, update

from tests.documents.fichiers import PDF_BYTES
from tests.factories.documents import upload
from unionflow.models import Adhesion, AuditLog, TelechargementDocument


async def _member(factory, org=None, roles=None):
    org = org or await factory.organisation()
    return org, await factory.actor(["USER"], organisation=org, org_roles=roles or ["MEMBRE"])


async def test_download_is_recorded_and_served_with_safe_headers(client, factory, db, settings):
    _, member = await _member(factory)
    doc = (await upload(client, member.headers, PDF_BYTES, filename="Reçu été 2026.pdf")).json()
    first = await client.post(f"/api/documents/{doc['id']}/telechargement", headers=member.headers)
    assert first.status_code == 200, first.text
    ticket = first.json()
    assert ticket["nombreTelechargements"] == 1 and ticket["hashSha256"] == doc["hashSha256"]
    assert ticket["url"] == f"/api/documents/{doc['id']}/contenu?telechargement={ticket['telechargementId']}"
    second = await client.post(f"/api/documents/{doc['id']}/telechargement", headers=member.headers)
    assert second.json()["nombreTelechargements"] == 2

    content = await client.get(ticket["url"], headers=member.headers)
    assert content.status_code == 200 and content.content == PDF_BYTES
    assert content.headers["content-type"] == "application/pdf"
    assert content.headers["x-content-type-options"] == "nosniff"
    disposition = content.headers["content-disposition"]
    assert disposition.startswith("attachment;")
    assert 'filename="Recu ete 2026.pdf"' in disposition
    assert unquote(disposition.split("filename*=UTF-8''")[1]) == "Reçu été 2026.pdf"

    rows = (await db.execute(select(TelechargementDocument).where(
        TelechargementDocument.document_id == uuid.UUID(doc["id"])))).scalars().all()
    assert len(rows) == 2 and all(r.utilisateur_sub.split(" ") == [settings.issuer, str(member.user.id)] for r in rows)
    assert (await db.execute(select(AuditLog).where(AuditLog.entite_id == doc["id"],
                                                    AuditLog.type_action == "TELECHARGER"))).scalars().all()
    meta = (await client.get(f"/api/documents/{doc['id']}", headers=member.headers)).json()
    assert meta["nombreTelechargements"] == 2 and meta["dateDernierTelechargement"]


async def test_content_requires_a_fresh_recorded_download(client, factory, db):
    _, member = await _member(factory)
    doc = (await upload(client, member.headers, PDF_BYTES)).json()
    assert (await client.get(f"/api/documents/{doc['id']}/contenu", headers=member.headers)).status_code == 400
    forged = await client.get(f"/api/documents/{doc['id']}/contenu", params={"telechargement": str(uuid.uuid4())},
                              headers=member.headers)
    assert forged.status_code == 400
    ticket = (await client.post(f"/api/documents/{doc['id']}/telechargement", headers=member.headers)).json()
    await db.execute(update(TelechargementDocument).where(
        TelechargementDocument.id == uuid.UUID(ticket["telechargementId"]))
        .values(date_telechargement=datetime.now(UTC) - timedelta(minutes=11)))
    assert (await client.get(ticket["url"], headers=member.headers)).status_code == 400


async def test_private_document_of_another_member_is_404(client, factory):
    org, owner = await _member(factory)
    _, other = await _member(factory, org)
    doc = (await upload(client, owner.headers, PDF_BYTES)).json()
    ticket = (await client.post(f"/api/documents/{doc['id']}/telechargement", headers=owner.headers)).json()
    for method, path in (("GET", f"/api/documents/{doc['id']}"), ("POST", f"/api/documents/{doc['id']}/telechargement"),
                         ("GET", f"/api/documents/{doc['id']}/pieces-jointes"), ("GET", ticket["url"])):
        assert (await client.request(method, path, headers=other.headers)).status_code == 404, path
    mine = await client.get("/api/documents/mes-documents", headers=other.headers)
    assert mine.json() == [] and mine.headers["x-total-count"] == "0"
    own = await client.get("/api/documents/mes-documents", headers=owner.headers)
    assert [d["id"] for d in own.json()] == [doc["id"]] and own.headers["x-total-count"] == "1"
    admin = await factory.actor(["ADMIN"], with_membre=False)
    assert (await client.get(f"/api/documents/{doc['id']}", headers=admin.headers)).status_code == 200
    assert (await client.get(f"/api/documents/{uuid.uuid4()}", headers=admin.headers)).status_code == 404


async def test_attachment_shares_with_the_entity_organisation_staff(client, factory, db):
    org, member = await _member(factory)
    adhesion = Adhesion(numero_reference=f"ADH-T-{uuid.uuid4().hex[:8]}", membre_id=member.membre.id,
                        organisation_id=org.id, statut="EN_ATTENTE", date_demande=date.today(),
                        frais_adhesion=Decimal("5000"), montant_paye=Decimal("0"), devise="XOF")
    db.add(adhesion)
    await db.flush()
    doc = (await upload(client, member.headers, PDF_BYTES, filename="cni.pdf", typeDocument="PIECE_IDENTITE")).json()
    _, secretary = await _member(factory, org, ["MEMBRE", "SECRETAIRE"])
    _, foreign_staff = await _member(factory, roles=["MEMBRE", "ADMIN_ORGANISATION"])
    assert (await client.get(f"/api/documents/{doc['id']}", headers=secretary.headers)).status_code == 404

    body = {"documentId": doc["id"], "typeEntite": "ADHESION", "entiteId": str(adhesion.id), "libelle": "CNI"}
    attached = await client.post("/api/documents/pieces-jointes", headers=member.headers, json=body)
    assert attached.status_code == 200, attached.text
    assert attached.json()["organisationId"] == str(org.id) and attached.json()["typeEntite"] == "ADHESION"
    assert (await client.post("/api/documents/pieces-jointes", headers=member.headers, json=body)).status_code == 409

    assert (await client.get(f"/api/documents/{doc['id']}", headers=secretary.headers)).status_code == 200
    assert (await client.get(f"/api/documents/{doc['id']}", headers=foreign_staff.headers)).status_code == 404
    listing = await client.get(f"/api/documents/{doc['id']}/pieces-jointes", headers=secretary.headers)
    assert [p["entiteId"] for p in listing.json()] == [str(adhesion.id)] and listing.headers["x-total-count"] == "1"


async def test_attachment_rules(client, factory):
    org, member = await _member(factory)
    _, other = await _member(factory, org)
    doc = (await upload(client, member.headers, PDF_BYTES)).json()
    url = "/api/documents/pieces-jointes"
    # Another member's record is outside the caller's reach.
    reach = await client.post(url, headers=member.headers, json={
        "documentId": doc["id"], "typeEntite": "MEMBRE", "entiteId": str(other.membre.id)})
    assert reach.status_code == 404
    own = await client.post(url, headers=member.headers, json={
        "documentId": doc["id"], "typeEntite": "MEMBRE", "entiteId": str(member.membre.id)})
    assert own.status_code == 200 and own.json()["organisationId"] is None
    to_org = await client.post(url, headers=member.headers, json={
        "documentId": doc["id"], "typeEntite": "ORGANISATION", "entiteId": str(org.id)})
    assert to_org.status_code == 200
    assert (await client.post(url, headers=member.headers, json={
        "documentId": doc["id"], "typeEntite": "ADHESION", "entiteId": str(uuid.uuid4())})).status_code == 404
    assert (await client.post(url, headers=member.headers, json={
        "documentId": doc["id"], "typeEntite": "VOITURE", "entiteId": str(uuid.uuid4())})).status_code == 400
    assert (await client.post(url, headers=member.headers, json={
        "documentId": str(uuid.uuid4()), "typeEntite": "MEMBRE",
        "entiteId": str(member.membre.id)})).status_code == 404
    # Staff of the organisation now sees the document, so may read it, but only its owner attaches it.
    _, treasurer = await _member(factory, org, ["MEMBRE", "TRESORIER"])
    assert (await client.get(f"/api/documents/{doc['id']}", headers=treasurer.headers)).status_code == 200
    assert (await client.post(url, headers=treasurer.headers, json={
        "documentId": doc["id"], "typeEntite": "ORGANISATION", "entiteId": str(org.id)})).status_code == 403


async def test_metadata_document_and_organisation_visibility(client, factory):
    org, secretary = await _member(factory, roles=["MEMBRE", "ADMIN_ORGANISATION"])
    _, member = await _member(factory, org)
    _, outsider = await _member(factory)
    body = {"nomFichier": "Statuts 2026.pdf", "description": "Statuts adoptés en AG", "typeDocument": "STATUTS",
            "visibilite": "ORGANISATION", "organisationId": str(org.id)}
    refused = await client.post("/api/documents", headers=member.headers, json=body)
    assert refused.status_code == 403
    created = await client.post("/api/documents", headers=secretary.headers, json=body)
    assert created.status_code == 200, created.text
    doc = created.json()
    assert doc["contenuDisponible"] is False and doc["tailleOctets"] is None
    assert (await client.get(f"/api/documents/{doc['id']}", headers=member.headers)).status_code == 200
    assert (await client.get(f"/api/documents/{doc['id']}", headers=outsider.headers)).status_code == 404
    no_content = await client.post(f"/api/documents/{doc['id']}/telechargement", headers=member.headers)
    assert no_content.status_code == 400

    for bad in ({**body, "typeDocument": "INCONNU"}, {**body, "organisationId": None},
                {**body, "statut": "X"}, {"description": "sans nom"}):
        assert (await client.post("/api/documents", headers=secretary.headers, json=bad)).status_code == 400
    assert (await client.post("/api/documents", headers=secretary.headers,
                              json={**body, "organisationId": str(uuid.uuid4())})).status_code == 404
    assert (await client.post("/api/documents", headers=outsider.headers, json={
        **body, "visibilite": "PRIVE"})).status_code == 403


async def test_document_roles(client, factory):
    user_only = await factory.actor(["USER"], with_membre=False)
    body = {"nomFichier": "note.txt", "typeDocument": "AUTRE"}
    assert (await client.post("/api/documents", headers=user_only.headers, json=body)).status_code == 403
    assert (await client.post("/api/documents", json=body)).status_code == 401
    assert (await client.get("/api/documents/mes-documents", headers=user_only.headers)).status_code == 200
    assert (await client.get("/api/documents/mes-documents")).status_code == 401
    assert (await client.post(f"/api/documents/{uuid.uuid4()}/telechargement",
                              headers=user_only.headers)).status_code == 403
    moderator = await factory.actor(["MODERATEUR"], with_membre=False)
    assert (await client.get(f"/api/documents/{uuid.uuid4()}", headers=moderator.headers)).status_code == 403
