"""Money a member declares is not money received (issue 8, item 3): the member's ``payer``/``paiement`` call
records a pending payment or opens a Wave session; only the treasury turns it into a validated payment."""

from __future__ import annotations

from decimal import Decimal

from sqlalchemy import select

from tests.factories.cotisations import adhesion, cotisation
from unionflow.models import AuditLog, Paiement


async def _org(factory):
    org = await factory.organisation()
    treasurer = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    member = await factory.actor(["MEMBRE"], organisation=org)
    return org, treasurer, member


async def _statuses(db, membre_id):
    return sorted((await db.execute(select(Paiement.statut).where(Paiement.membre_id == membre_id))).scalars())


async def test_member_cash_payment_of_dues_is_a_pending_declaration(client, factory, db):
    org, treasurer, member = await _org(factory)
    dues = await cotisation(db, member.membre, org, 5000, echeance=None)
    declared = await client.put(f"/api/cotisations/{dues.id}/payer", headers=member.headers,
                                json={"montant": "5000", "methodePaiement": "ESPECES", "referencePaiement": "CAISSE-7"})
    assert declared.status_code == 200, declared.text
    body = declared.json()
    assert body["recu"] is None and body["statut"] == "EN_ATTENTE" and body["montantPaye"] == "0.00"
    declaration = body["declaration"]
    assert declaration["statut"] == "EN_ATTENTE" and declaration["waveLaunchUrl"] is None
    await db.refresh(dues)
    assert dues.statut == "EN_ATTENTE" and dues.montant_paye == Decimal("0")
    assert await _statuses(db, member.membre.id) == ["EN_ATTENTE"]
    paiement_id = declaration["paiementId"]
    assert (await client.get(f"/api/paiements/{paiement_id}/recu", headers=member.headers)).status_code == 400
    account = (await client.get("/api/compte-adherent/me", headers=member.headers)).json()
    assert account["cotisations"]["montantPaye"] in ("0", "0.00")
    again = await client.put(f"/api/cotisations/{dues.id}/payer", headers=member.headers, json={"montant": "10"})
    assert again.status_code == 409 and again.json()["paiementId"] == paiement_id

    # The member cannot confirm his own declaration (route role set), nor can a treasurer elsewhere see it.
    assert (await client.post(f"/api/paiements/{paiement_id}/confirmer", headers=member.headers,
                              json={})).status_code == 403
    elsewhere = await factory.actor(["USER"], organisation=await factory.organisation(), org_roles=["TRESORIER"])
    # No body at all: the body is optional (issue 21), so this is the payment's 404, not a 400 on the body.
    assert (await client.post(f"/api/paiements/{paiement_id}/confirmer",
                              headers=elsewhere.headers)).status_code == 404

    confirmed = await client.post(f"/api/paiements/{paiement_id}/confirmer", headers=treasurer.headers,
                                  json={"referenceExterne": "BORD-12"})
    assert confirmed.status_code == 200, confirmed.text
    assert confirmed.json()["statut"] == "VALIDE" and confirmed.json()["referenceExterne"] == "BORD-12"
    await db.refresh(dues)
    assert dues.statut == "PAYEE" and dues.montant_paye == Decimal("5000")
    assert (await client.get(f"/api/paiements/{paiement_id}/recu", headers=member.headers)).status_code == 200
    twice = await client.post(f"/api/paiements/{paiement_id}/confirmer", headers=treasurer.headers, json={})
    assert twice.status_code == 400
    actions = set((await db.execute(select(AuditLog.type_action).where(
        AuditLog.entite_id == paiement_id))).scalars())
    assert {"DECLARER", "CONFIRMER", "VALIDER_PAIEMENT"} <= actions


async def test_rejected_declaration_leaves_the_dues_owed(client, factory, db):
    org, treasurer, member = await _org(factory)
    dues = await cotisation(db, member.membre, org, 3000)
    declared = (await client.put(f"/api/cotisations/{dues.id}/payer", headers=member.headers,
                                 json={"montant": "3000"})).json()["declaration"]
    short = await client.post(f"/api/paiements/{declared['paiementId']}/rejeter", headers=treasurer.headers,
                              json={"motif": "x"})
    assert short.status_code == 400
    rejected = await client.post(f"/api/paiements/{declared['paiementId']}/rejeter", headers=treasurer.headers,
                                 json={"motif": "Aucun versement reçu en caisse"})
    assert rejected.status_code == 200 and rejected.json()["statut"] == "ANNULE"
    assert "Aucun versement" in rejected.json()["commentaire"]
    await db.refresh(dues)
    assert dues.statut == "EN_ATTENTE" and dues.montant_paye == Decimal("0")
    assert (await client.post(f"/api/paiements/{declared['paiementId']}/confirmer", headers=treasurer.headers,
                              json={})).status_code == 400
    # Rejected: the member may declare again.
    assert (await client.put(f"/api/cotisations/{dues.id}/payer", headers=member.headers,
                             json={"montant": "3000"})).status_code == 200


async def test_declaration_on_dues_cancelled_meanwhile_cannot_be_confirmed(client, factory, db):
    org, treasurer, member = await _org(factory)
    dues = await cotisation(db, member.membre, org, 3000)
    declared = (await client.put(f"/api/cotisations/{dues.id}/payer", headers=member.headers,
                                 json={"montant": "3000"})).json()["declaration"]
    dues.statut = "ANNULEE"
    await db.flush()
    refused = await client.post(f"/api/paiements/{declared['paiementId']}/confirmer", headers=treasurer.headers,
                                json={})
    assert refused.status_code == 400 and "rejetez" in refused.json()["detail"]


async def test_member_adhesion_fee_by_wave_answers_the_checkout_url(client, factory, db, wave):
    org, treasurer, member = await _org(factory)
    adh = await adhesion(db, member.membre, org, 10000)
    paid = await client.post(f"/api/adhesions/{adh.id}/paiement", headers=member.headers,
                             params={"montantPaye": "10000", "methodePaiement": "WAVE"})
    assert paid.status_code == 200, paid.text
    body = paid.json()
    assert body["recu"] is None and body["statut"] == "APPROUVEE"
    declaration = body["declaration"]
    assert declaration["waveLaunchUrl"].startswith("https://pay.wave.com/c/")
    assert wave.sessions[declaration["checkoutId"]]["amount"] == "10000"
    await db.refresh(adh)
    assert adh.statut == "APPROUVEE" and adh.montant_paye == Decimal("0")
    # A Wave session is confirmed by Wave only, never by the treasury's hand.
    manual = await client.post(f"/api/paiements/{declaration['paiementId']}/confirmer", headers=treasurer.headers,
                               json={})
    assert manual.status_code == 400 and "Wave" in manual.json()["detail"]


async def test_member_adhesion_fee_in_cash_is_declared_and_treasurer_still_records_directly(client, factory, db):
    org, treasurer, member = await _org(factory)
    adh = await adhesion(db, member.membre, org, 10000)
    declared = await client.post(f"/api/adhesions/{adh.id}/paiement", headers=member.headers,
                                 params={"montantPaye": "4000"})
    assert declared.status_code == 200 and declared.json()["recu"] is None
    assert declared.json()["declaration"]["montant"] == "4000.00"
    await db.refresh(adh)
    assert adh.montant_paye == Decimal("0")
    recorded = await client.post(f"/api/adhesions/{adh.id}/paiement", headers=treasurer.headers,
                                 params={"montantPaye": "10000"})
    assert recorded.status_code == 200 and recorded.json()["statut"] == "PAYEE"
    assert recorded.json()["recu"]["numeroRecu"].startswith("REC-") and recorded.json()["declaration"] is None
    assert await _statuses(db, member.membre.id) == ["EN_ATTENTE", "VALIDE"]
