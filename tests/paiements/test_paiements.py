from __future__ import annotations

import uuid

from sqlalchemy import func, select

from tests.factories.cotisations import adhesion, cotisation
from tests.factories.paiements import defaire
from tests.pdf import pdf_text
from unionflow.models import AuditLog, CleIdempotence, Paiement


async def _setup(factory, db):
    org = await factory.organisation()
    treasurer = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    member = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    return org, treasurer, member


def _manual(org, member, cibles, montant="5000", **extra):
    return {"membreId": str(member.membre.id), "organisationId": str(org.id), "montant": montant,
            "methode": "ESPECES", "cibles": cibles, **extra}


async def test_treasurer_records_cash_payment_split_over_dues(client, factory, db):
    org, treasurer, member = await _setup(factory, db)
    first = await cotisation(db, member.membre, org, 3000)
    second = await cotisation(db, member.membre, org, 4000)
    response = await client.post("/api/paiements", headers=treasurer.headers, json=_manual(
        org, member, [{"cotisationId": str(first.id)}, {"cotisationId": str(second.id)}], "5000"))
    assert response.status_code == 201, response.text
    body = response.json()
    assert body["statut"] == "VALIDE" and body["numeroRecu"].startswith("REC-")
    split = {a["cotisationId"]: a["montant"] for a in body["allocations"]}
    assert split == {str(first.id): "3000.00", str(second.id): "2000.00"}
    await db.refresh(first)
    await db.refresh(second)
    assert first.statut == "PAYEE" and second.statut == "PARTIELLEMENT_PAYEE" and second.montant_paye == 2000

    by_number = await client.get(f"/api/paiements/recu/{body['numeroRecu']}", headers=member.headers)
    assert by_number.status_code == 200 and by_number.json()["id"] == body["id"]
    mine = await client.get("/api/paiements/mes-paiements", headers=member.headers)
    assert [p["id"] for p in mine.json()["content"]] == [body["id"]]
    receipt = await client.get(f"/api/paiements/{body['id']}/recu", headers=member.headers)
    text = pdf_text(receipt.content)
    assert receipt.content.startswith(b"%PDF") and body["numeroRecu"] in text and first.numero_reference in text


async def test_manual_payment_rules(client, factory, db):
    org, treasurer, member = await _setup(factory, db)
    dues = await cotisation(db, member.membre, org, 3000)
    cible = [{"cotisationId": str(dues.id)}]
    too_much = await client.post("/api/paiements", headers=treasurer.headers, json=_manual(org, member, cible, "3500"))
    assert too_much.status_code == 400
    no_ref = await client.post("/api/paiements", headers=treasurer.headers,
                               json={**_manual(org, member, cible, "3000"), "methode": "CHEQUE"})
    assert no_ref.status_code == 400 and "referenceExterne" in no_ref.text
    status_forged = await client.post("/api/paiements", headers=treasurer.headers,
                                      json={**_manual(org, member, cible), "statut": "VALIDE"})
    assert status_forged.status_code == 400
    member_tries = await client.post("/api/paiements", headers=member.headers, json=_manual(org, member, cible))
    assert member_tries.status_code == 403
    other_org = await factory.organisation()
    other_treasurer = await factory.actor(["USER"], organisation=other_org, org_roles=["MEMBRE", "TRESORIER"])
    foreign = await client.post("/api/paiements", headers=other_treasurer.headers,
                                json=_manual(org, member, cible, "3000"))
    assert foreign.status_code == 404
    pending_adh = await adhesion(db, member.membre, org, 2000, statut="EN_ATTENTE")
    unapproved = await client.post("/api/paiements", headers=treasurer.headers,
                                   json=_manual(org, member, [{"adhesionId": str(pending_adh.id)}], "2000"))
    assert unapproved.status_code == 400
    await db.refresh(dues)
    assert dues.montant_paye == 0


async def test_idempotency_key_replays_and_rejects_other_body(client, factory, db):
    org, treasurer, member = await _setup(factory, db)
    dues = await cotisation(db, member.membre, org, 3000)
    payload = _manual(org, member, [{"cotisationId": str(dues.id)}], "1000")
    headers = {**treasurer.headers, "Idempotency-Key": "caisse-2026-0001"}
    first = await client.post("/api/paiements", headers=headers, json=payload)
    again = await client.post("/api/paiements", headers=headers, json=payload)
    assert first.status_code == again.status_code == 201
    assert first.json() == again.json() and again.headers.get("Idempotent-Replayed") == "true"
    other = await client.post("/api/paiements", headers=headers, json={**payload, "montant": "2000"})
    assert other.status_code == 422 and other.json()["type"].endswith("idempotency-key-reused")
    count = (await db.execute(select(func.count()).select_from(Paiement)
                              .where(Paiement.membre_id == member.membre.id))).scalar_one()
    assert count == 1
    await db.refresh(dues)
    assert dues.montant_paye == 1000
    # Another caller's identical key is a different key.
    admin = await factory.actor(["ADMIN"], with_membre=False)
    separate = await client.post("/api/paiements", headers={**admin.headers, "Idempotency-Key": "caisse-2026-0001"},
                                 json=payload)
    assert separate.status_code == 201 and separate.json()["id"] != first.json()["id"]
    stored = (await db.execute(select(CleIdempotence).where(CleIdempotence.cle == "caisse-2026-0001"))).scalars()
    assert {row.statut_reponse for row in stored} == {201}


async def test_failed_request_does_not_burn_the_key(client, factory, db):
    org, treasurer, member = await _setup(factory, db)
    dues = await cotisation(db, member.membre, org, 3000)
    headers = {**treasurer.headers, "Idempotency-Key": "retry-me"}
    bad = await client.post("/api/paiements", headers=headers,
                            json=_manual(org, member, [{"cotisationId": str(dues.id)}], "9000"))
    assert bad.status_code == 400
    fixed = await client.post("/api/paiements", headers=headers,
                              json=_manual(org, member, [{"cotisationId": str(dues.id)}], "9000")
                              | {"montant": "3000"})
    assert fixed.status_code == 201


async def test_bola_member_cannot_read_another_members_payment(client, factory, db):
    org, treasurer, member = await _setup(factory, db)
    other = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    dues = await cotisation(db, member.membre, org, 3000)
    paid = (await client.post("/api/paiements", headers=treasurer.headers,
                              json=_manual(org, member, [{"cotisationId": str(dues.id)}], "3000"))).json()
    for path in (f"/api/paiements/{paid['id']}", f"/api/paiements/{paid['id']}/recu",
                 f"/api/paiements/recu/{paid['numeroRecu']}"):
        response = await client.get(path, headers=other.headers)
        assert response.status_code == 404, path
    listing = await client.get("/api/paiements", headers=other.headers, params={"membreId": str(member.membre.id)})
    assert listing.json()["content"] == []
    assert (await client.get(f"/api/paiements/{uuid.uuid4()}", headers=treasurer.headers)).status_code == 404
    assert (await client.get(f"/api/paiements/{paid['id']}", headers=treasurer.headers)).status_code == 200
    outsider_org = await factory.organisation()
    outsider = await factory.actor(["USER"], organisation=outsider_org, org_roles=["MEMBRE", "TRESORIER"])
    assert (await client.get(f"/api/paiements/{paid['id']}", headers=outsider.headers)).status_code == 404
    assert (await client.get("/api/paiements")).status_code == 401


async def test_list_filters_and_paging(client, factory, db):
    org, treasurer, member = await _setup(factory, db)
    other = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    for actor in (member, member, other):
        dues = await cotisation(db, actor.membre, org, 1000)
        created = await client.post("/api/paiements", headers=treasurer.headers, json={
            **_manual(org, actor, [{"cotisationId": str(dues.id)}], "1000"), "methode": "VIREMENT",
            "referenceExterne": f"VIR-{uuid.uuid4().hex[:6]}"})
        assert created.status_code == 201
    page = await client.get("/api/paiements", headers=treasurer.headers,
                            params={"membreId": str(member.membre.id), "size": 1})
    body = page.json()
    assert body["totalElements"] == 2 and len(body["content"]) == 1 and body["totalPages"] == 2
    by_method = await client.get("/api/paiements", headers=treasurer.headers,
                                 params={"methode": "ESPECES", "organisationId": str(org.id)})
    assert by_method.json()["totalElements"] == 0
    dated = await client.get("/api/paiements", headers=treasurer.headers,
                             params={"dateDebut": "2000-01-01", "dateFin": "2000-12-31"})
    assert dated.json()["totalElements"] == 0
    assert (await client.get("/api/paiements", headers=treasurer.headers,
                             params={"statut": "PAS_UN_STATUT"})).status_code == 400
    assert (await client.get("/api/paiements", headers=treasurer.headers, params={"size": 500})).status_code == 400


async def test_cancel_manual_payment_reverses_dues_and_adhesion(client, factory, db):
    org, treasurer, member = await _setup(factory, db)
    dues = await cotisation(db, member.membre, org, 3000)
    adh = await adhesion(db, member.membre, org, 2000)
    paid = (await client.post("/api/paiements", headers=treasurer.headers, json=_manual(
        org, member, [{"cotisationId": str(dues.id)}, {"adhesionId": str(adh.id)}], "5000"))).json()
    forbidden = await client.post(f"/api/paiements/{paid['id']}/annuler", headers=member.headers,
                                  json={"motif": "Erreur de saisie"})
    assert forbidden.status_code == 403
    president = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "PRESIDENT"])
    cancelled = await defaire(client, f"/api/paiements/{paid['id']}/annuler", treasurer, president)
    assert cancelled.status_code == 200 and cancelled.json()["statut"] == "APPROUVEE"
    assert (await client.get(f"/api/paiements/{paid['id']}", headers=treasurer.headers)).json()["statut"] == "ANNULE"
    await db.refresh(dues)
    await db.refresh(adh)
    assert (dues.statut, dues.montant_paye) == ("EN_ATTENTE", 0)
    assert (adh.statut, adh.montant_paye) == ("APPROUVEE", 0)
    twice = await client.post(f"/api/paiements/{paid['id']}/annuler", headers=treasurer.headers,
                              json={"motif": "Encore"})
    assert twice.status_code == 400
    warning = (await db.execute(select(AuditLog).where(AuditLog.entite_id == paid["id"],
                                                       AuditLog.type_action == "PAIEMENT_ANNULE"))).scalar_one()
    # Carried out by the second person, who approved it.
    assert warning.severite == "WARNING" and warning.utilisateur == president.user.email
    receipt = await client.get(f"/api/paiements/{paid['id']}/recu", headers=member.headers)
    assert receipt.status_code == 200 and "ANNULÉ" in pdf_text(receipt.content)
    # The dues can be paid again.
    again = await client.post("/api/paiements", headers=treasurer.headers,
                              json=_manual(org, member, [{"cotisationId": str(dues.id)}], "3000"))
    assert again.status_code == 201
