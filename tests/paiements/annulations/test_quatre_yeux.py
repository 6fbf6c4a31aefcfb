"""Money undone by two people (issue 19, item 1): a request with a reason, approved by a second person who is
neither the requester nor who recorded the money; nothing moves before; above the threshold the approval
workflow decides first; the member is told."""

from __future__ import annotations

import uuid

from sqlalchemy import select

from tests.factories.cotisations import cotisation
from tests.factories.paiements import defaire
from tests.notifications.boite import notifications
from unionflow.models import AuditLog, EcritureComptable, Paiement


async def _org(factory):
    org = await factory.organisation()
    tresorier = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    second = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    president = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "PRESIDENT"])
    membre = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    return org, tresorier, second, president, membre


async def _paiement(client, db, org, tresorier, membre, montant="2500", methode="ESPECES"):
    dues = await cotisation(db, membre.membre, org, montant)
    body = {"membreId": str(membre.membre.id), "organisationId": str(org.id), "montant": montant,
            "methode": methode, "cibles": [{"cotisationId": str(dues.id)}]}
    if methode != "ESPECES":
        body["referenceExterne"] = "VIR-1"
    paid = await client.post("/api/paiements", headers=tresorier.headers, json=body)
    assert paid.status_code == 201, paid.text
    return paid.json(), dues


async def _extournes(db, paiement):
    return (await db.execute(select(EcritureComptable).where(
        EcritureComptable.piece_reference == f"EXT-{paiement['numeroRecu']}"))).scalars().all()


async def test_one_person_asks_nothing_moves_a_second_approves(client, factory, db):
    org, tresorier, _, president, membre = await _org(factory)
    paiement, dues = await _paiement(client, db, org, tresorier, membre)
    asked = await client.post(f"/api/paiements/{paiement['id']}/annuler", headers=tresorier.headers,
                              json={"motif": "Erreur de saisie"}, )
    assert asked.status_code == 202, asked.text
    demande = asked.json()
    assert (demande["statut"], demande["typeAnnulation"], demande["reference"]) == (
        "EN_ATTENTE", "ANNULATION_PAIEMENT", paiement["numeroRecu"])
    # Nothing moved: still valid, dues still paid, no reversal entry.
    row = await db.get(Paiement, uuid.UUID(paiement["id"]))
    await db.refresh(row)
    await db.refresh(dues)
    assert row.statut == "VALIDE" and dues.statut == "PAYEE" and not await _extournes(db, paiement)
    again = await client.post(f"/api/paiements/{paiement['id']}/annuler", headers=tresorier.headers,
                              json={"motif": "Encore"})
    assert again.status_code == 409
    alone = await client.post(f"/api/annulations/{demande['id']}/approuver", headers=tresorier.headers, json={})
    assert alone.status_code == 403 and "quatre yeux" in alone.json()["detail"]
    member_tries = await client.post(f"/api/annulations/{demande['id']}/approuver", headers=membre.headers, json={})
    assert member_tries.status_code == 403
    pending = await client.get(f"/api/annulations?organisationId={org.id}&statut=EN_ATTENTE",
                               headers=president.headers)
    assert [d["id"] for d in pending.json()] == [demande["id"]]

    approved = await client.post(f"/api/annulations/{demande['id']}/approuver", headers=president.headers,
                                 json={"commentaire": "Vu le bordereau"})
    assert approved.status_code == 200, approved.text
    assert approved.json()["statut"] == "APPROUVEE" and approved.json()["decidePar"] == president.user.email
    await db.refresh(row)
    await db.refresh(dues)
    assert row.statut == "ANNULE" and (dues.statut, dues.montant_paye) == ("EN_ATTENTE", 0)
    assert len(await _extournes(db, paiement)) == 1
    actions = dict((await db.execute(select(AuditLog.type_action, AuditLog.utilisateur).where(
        AuditLog.entite_id == demande["id"]))).all())
    assert actions == {"DEMANDER_ANNULATION": tresorier.user.email, "APPROUVER_ANNULATION": president.user.email}
    notices = [n for n in await notifications(client, membre) if n["typeNotification"] == "PAIEMENT_ANNULE"]
    assert len(notices) == 1 and paiement["numeroRecu"] in notices[0]["corps"] and "Erreur de saisie" in notices[0][
        "corps"]


async def test_who_recorded_the_money_cannot_approve_its_undoing(client, factory, db):
    org, tresorier, second, president, membre = await _org(factory)
    paiement, _ = await _paiement(client, db, org, second, membre)
    asked = await client.post(f"/api/paiements/{paiement['id']}/annuler", headers=tresorier.headers,
                              json={"motif": "Doublon"})
    recorder = await client.post(f"/api/annulations/{asked.json()['id']}/approuver", headers=second.headers,
                                 json={})
    assert recorder.status_code == 403 and "enregistré" in recorder.json()["detail"]
    # A third person (another treasurer would do too) approves.
    ok = await client.post(f"/api/annulations/{asked.json()['id']}/approuver", headers=president.headers, json={})
    assert ok.status_code == 200, ok.text


async def test_who_confirmed_a_declaration_cannot_approve_its_undoing(client, factory, db):
    """The member declared, a treasurer confirmed (he received the money): he is one of its authors too."""
    org, tresorier, second, president, membre = await _org(factory)
    dues = await cotisation(db, membre.membre, org, "1500")
    declared = await client.put(f"/api/cotisations/{dues.id}/payer", headers=membre.headers,
                                json={"montant": "1500", "methodePaiement": "ESPECES"})
    pid = declared.json()["declaration"]["paiementId"]
    confirmed = await client.post(f"/api/paiements/{pid}/confirmer", headers=second.headers, json={})
    assert confirmed.status_code == 200, confirmed.text
    asked = await client.post(f"/api/paiements/{pid}/annuler", headers=tresorier.headers, json={"motif": "Doublon"})
    assert asked.status_code == 202, asked.text
    receiver = await client.post(f"/api/annulations/{asked.json()['id']}/approuver", headers=second.headers,
                                 json={})
    assert receiver.status_code == 403, receiver.text
    ok = await client.post(f"/api/annulations/{asked.json()['id']}/approuver", headers=president.headers, json={})
    assert ok.status_code == 200, ok.text


async def test_rejected_refund_moves_nothing_and_an_approved_one_issues_a_refund_receipt(client, factory, db):
    org, tresorier, second, _, membre = await _org(factory)
    paiement, dues = await _paiement(client, db, org, tresorier, membre, "4000", "VIREMENT")
    asked = await client.post(f"/api/paiements/{paiement['id']}/rembourser", headers=tresorier.headers,
                              json={"motif": "Le membre quitte la mutuelle"})
    assert asked.status_code == 202, asked.text
    no_reason = await client.post(f"/api/annulations/{asked.json()['id']}/rejeter", headers=second.headers, json={})
    assert no_reason.status_code == 400
    rejected = await client.post(f"/api/annulations/{asked.json()['id']}/rejeter", headers=second.headers,
                                 json={"commentaire": "Cotisation de l'année déjà engagée"})
    assert rejected.status_code == 200 and rejected.json()["statut"] == "REJETEE"
    row = await db.get(Paiement, uuid.UUID(paiement["id"]))
    await db.refresh(row)
    assert row.statut == "VALIDE" and not await _extournes(db, paiement)
    no_receipt = await client.get(f"/api/paiements/{paiement['id']}/recu-remboursement", headers=membre.headers)
    assert no_receipt.status_code == 400

    done = await defaire(client, f"/api/paiements/{paiement['id']}/rembourser", tresorier, second,
                         "Départ du membre")
    assert done.status_code == 200, done.text
    numero = done.json()["numeroRemboursement"]
    assert numero.startswith("RMB-")
    await db.refresh(row)
    await db.refresh(dues)
    assert row.statut == "REMBOURSE" and dues.montant_paye == 0
    notices = [n for n in await notifications(client, membre) if n["typeNotification"] == "PAIEMENT_REMBOURSE"]
    assert len(notices) == 1 and numero in notices[0]["corps"]


async def test_above_the_threshold_the_approval_workflow_decides_first(client, factory, db):
    org, tresorier, second, president, membre = await _org(factory)
    admin = await factory.actor(["ADMIN"], with_membre=False)
    r = await client.put("/api/configuration/finance.approbation.seuil_annulation", headers=admin.headers,
                         json={"valeur": 3000})
    assert r.status_code == 200, r.text
    paiement, _ = await _paiement(client, db, org, tresorier, membre, "5000")
    asked = (await client.post(f"/api/paiements/{paiement['id']}/annuler", headers=tresorier.headers,
                               json={"motif": "Erreur de montant"})).json()
    assert asked["approbationId"] is not None
    early = await client.post(f"/api/annulations/{asked['id']}/approuver", headers=second.headers, json={})
    assert early.status_code == 400 and "approbation" in early.json()["detail"]
    decided = await client.post(f"/api/finance/approbations/{asked['approbationId']}/approuver",
                                headers=president.headers, json={})
    assert decided.status_code == 200 and decided.json()["statut"] == "APPROUVEE", decided.text
    ok = await client.post(f"/api/annulations/{asked['id']}/approuver", headers=second.headers, json={})
    assert ok.status_code == 200 and ok.json()["statut"] == "APPROUVEE", ok.text


async def test_requester_withdraws_and_a_pending_declaration_is_closed_in_one_step(client, factory, db):
    org, tresorier, second, _, membre = await _org(factory)
    paiement, _ = await _paiement(client, db, org, tresorier, membre)
    asked = (await client.post(f"/api/paiements/{paiement['id']}/annuler", headers=tresorier.headers,
                               json={"motif": "Erreur"})).json()
    other = await client.post(f"/api/annulations/{asked['id']}/retirer", headers=second.headers)
    assert other.status_code == 403
    withdrawn = await client.post(f"/api/annulations/{asked['id']}/retirer", headers=tresorier.headers)
    assert withdrawn.status_code == 200 and withdrawn.json()["statut"] == "RETIREE"
    dues = await cotisation(db, membre.membre, org, "1500")
    declared = await client.put(f"/api/cotisations/{dues.id}/payer", headers=membre.headers,
                                json={"montant": "1500", "methodePaiement": "ESPECES"})
    assert declared.status_code in (200, 201, 202), declared.text
    pid = declared.json()["declaration"]["paiementId"]
    closed = await client.post(f"/api/paiements/{pid}/annuler", headers=tresorier.headers,
                               json={"motif": "Jamais reçu"})
    assert closed.status_code == 200 and closed.json()["statut"] == "ANNULE", closed.text
