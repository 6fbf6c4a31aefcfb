"""Issue 28, item 6 — no double payment: one pending payment at a time per dues (a member's declaration blocks a
Wave checkout, an open Wave session blocks a declaration), and money that still arrives twice becomes credit
visibly (audit line, notices to the member and to the treasury)."""

from __future__ import annotations

from decimal import Decimal

from sqlalchemy import select

from tests.factories.cotisations import cotisation
from unionflow.models import AuditLog, Notification, Paiement
from unionflow.wave.simulateur import completed_event, signed_webhook

SECRET = "wave-test-webhook-secret"
WEBHOOK = "/api/paiements/wave/webhook"
CHECKOUT = "/api/paiements/wave/checkout"


async def _org(factory):
    org = await factory.organisation()
    treasurer = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    member = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    return org, treasurer, member


async def _declare(client, member, dues, methode="ESPECES") -> dict:
    declared = await client.put(f"/api/cotisations/{dues.id}/payer", headers=member.headers,
                                json={"montant": str(dues.montant_du), "methodePaiement": methode})
    assert declared.status_code == 200, declared.text
    return declared.json()["declaration"]


def _checkout(org, dues) -> dict:
    return {"organisationId": str(org.id), "cibles": [{"cotisationId": str(dues.id)}]}


async def _notices(db, membre_id) -> list[Notification]:
    return list((await db.execute(select(Notification).where(
        Notification.membre_id == membre_id,
        Notification.type_notification == "AVOIR_DOUBLE_PAIEMENT"))).scalars())


async def _audit(db, paiement_id) -> list[AuditLog]:
    return list((await db.execute(select(AuditLog).where(
        AuditLog.entite_id == paiement_id, AuditLog.type_action == "CONVERTIR_EN_AVOIR"))).scalars())


# ---- 1. a declaration awaiting the treasurer: no Wave checkout --------------------------------------------------

async def test_pending_declaration_refuses_a_wave_checkout_of_the_same_dues(client, factory, db, wave):
    org, _, member = await _org(factory)
    december = await cotisation(db, member.membre, org, 2000)
    other = await cotisation(db, member.membre, org, 2000)
    declaration = await _declare(client, member, december)

    refused = await client.post(CHECKOUT, headers=member.headers, json=_checkout(org, december))
    assert refused.status_code == 409, refused.text
    detail = refused.json()["detail"]
    assert declaration["referenceDeclaration"] in detail and december.numero_reference in detail
    assert "trésorerie" in detail and "espèces" in detail
    assert refused.json()["paiementId"] == declaration["paiementId"]
    # Also through the member's own « payer » with WAVE, and when the dues is one of several targets.
    by_payer = await client.put(f"/api/cotisations/{december.id}/payer", headers=member.headers,
                                json={"montant": "2000", "methodePaiement": "WAVE"})
    assert by_payer.status_code == 409 and declaration["referenceDeclaration"] in by_payer.json()["detail"]
    both = await client.post(CHECKOUT, headers=member.headers, json={
        "organisationId": str(org.id), "cibles": [{"cotisationId": str(other.id)},
                                                  {"cotisationId": str(december.id)}]})
    assert both.status_code == 409
    assert not wave.sessions  # Wave was never asked
    assert (await db.execute(select(Paiement.methode).where(Paiement.membre_id == member.membre.id))
            ).scalars().all() == ["ESPECES"]
    # The other dues is payable by Wave.
    assert (await client.post(CHECKOUT, headers=member.headers, json=_checkout(org, other))).status_code == 201


async def test_rejected_declaration_frees_the_dues_for_wave(client, factory, db, wave):
    org, treasurer, member = await _org(factory)
    dues = await cotisation(db, member.membre, org, 2000)
    declaration = await _declare(client, member, dues, "VIREMENT")
    assert (await client.post(CHECKOUT, headers=member.headers, json=_checkout(org, dues))).status_code == 409
    rejected = await client.post(f"/api/paiements/{declaration['paiementId']}/rejeter", headers=treasurer.headers,
                                 json={"motif": "Aucun virement reçu"})
    assert rejected.status_code == 200
    assert (await client.post(CHECKOUT, headers=member.headers, json=_checkout(org, dues))).status_code == 201


async def test_member_account_names_the_pending_payment_of_each_dues(client, factory, db, wave):
    org, _, member = await _org(factory)
    declared = await cotisation(db, member.membre, org, 2000)
    by_wave = await cotisation(db, member.membre, org, 3000)
    free = await cotisation(db, member.membre, org, 4000)
    declaration = await _declare(client, member, declared)
    session = (await client.post(CHECKOUT, headers=member.headers, json=_checkout(org, by_wave))).json()

    account = (await client.get("/api/compte-adherent/me", headers=member.headers)).json()
    lines = {line["id"]: line["paiementEnAttente"] for line in account["cotisationsAPayer"]}
    assert lines[str(declared.id)] == {"paiementId": declaration["paiementId"], "methode": "ESPECES",
                                       "reference": declaration["referenceDeclaration"]}
    assert lines[str(by_wave.id)]["methode"] == "WAVE"
    assert lines[str(by_wave.id)]["paiementId"] == session["paiementId"]
    assert lines[str(free.id)] is None


# ---- 2. an open Wave session: no declaration ---------------------------------------------------------------------

async def test_open_wave_session_refuses_a_declaration_of_the_same_dues(client, factory, db, wave):
    org, _, member = await _org(factory)
    dues = await cotisation(db, member.membre, org, 2000)
    session = (await client.post(CHECKOUT, headers=member.headers, json=_checkout(org, dues))).json()

    refused = await client.put(f"/api/cotisations/{dues.id}/payer", headers=member.headers,
                               json={"montant": "2000", "methodePaiement": "ESPECES"})
    assert refused.status_code == 409, refused.text
    assert "Wave" in refused.json()["detail"] and session["numeroRecu"] in refused.json()["detail"]
    assert refused.json()["paiementId"] == session["paiementId"]
    statuts = (await db.execute(select(Paiement.statut).where(Paiement.membre_id == member.membre.id))).scalars()
    assert list(statuts) == ["EN_ATTENTE"]


async def test_failed_or_expired_wave_session_no_longer_blocks_a_declaration(client, factory, db, wave):
    org, _, member = await _org(factory)
    failed_dues = await cotisation(db, member.membre, org, 2000)
    expired_dues = await cotisation(db, member.membre, org, 3000)
    failed = (await client.post(CHECKOUT, headers=member.headers, json=_checkout(org, failed_dues))).json()
    raw, headers = signed_webhook(SECRET, completed_event(wave.fail(failed["checkoutId"]),
                                                          event_type="checkout.session.payment_failed"))
    assert (await client.post(WEBHOOK, content=raw, headers=headers)).json()["resultat"] == "ECHEC_ENREGISTRE"
    await _declare(client, member, failed_dues)

    expired = (await client.post(CHECKOUT, headers=member.headers, json=_checkout(org, expired_dues))).json()
    assert (await client.post(f"/api/paiements/{expired['paiementId']}/wave/expirer",
                              headers=member.headers)).json()["statut"] == "EXPIRE"
    await _declare(client, member, expired_dues)


# ---- 3. money that still arrives twice becomes credit, visibly ---------------------------------------------------

async def _assert_credit_said(db, paiement_id, member, treasurer, montant, *words):
    lines = await _audit(db, paiement_id)
    assert len(lines) == 1 and lines[0].severite == "WARNING"
    for who in (member, treasurer):
        notices = await _notices(db, who.membre.id)
        assert len(notices) >= 1, who
        corps = " ".join(n.corps for n in notices)
        assert montant in corps and "avoir" in corps
        for word in words:
            assert word in corps and word in lines[0].description


async def test_wave_confirmed_after_the_declaration_was_confirmed_becomes_credit_said(client, factory, db, wave):
    org, treasurer, member = await _org(factory)
    dues = await cotisation(db, member.membre, org, 2000)
    session = (await client.post(CHECKOUT, headers=member.headers, json=_checkout(org, dues))).json()
    # The attempt failed (the session no longer blocks), the member paid cash and declared it, the treasurer
    # confirmed... then the member retried in the same Wave session and Wave took the money.
    raw, headers = signed_webhook(SECRET, completed_event(wave.fail(session["checkoutId"]),
                                                          event_type="checkout.session.payment_failed"))
    await client.post(WEBHOOK, content=raw, headers=headers)
    declaration = await _declare(client, member, dues)
    confirmed = (await client.post(f"/api/paiements/{declaration['paiementId']}/confirmer",
                                   headers=treasurer.headers, json={})).json()
    assert confirmed["statut"] == "VALIDE" and confirmed["avoirCree"] == "0.00"
    assert await _notices(db, member.membre.id) == []

    raw, headers = signed_webhook(SECRET, completed_event(wave.complete(session["checkoutId"])))
    assert (await client.post(WEBHOOK, content=raw, headers=headers)).json()["resultat"] == "APPLIQUE"
    paid = (await client.get(f"/api/paiements/{session['paiementId']}", headers=member.headers)).json()
    assert paid["statut"] == "VALIDE" and paid["avoirCree"] == "2000.00" and paid["allocations"] == []
    await db.refresh(dues)
    assert dues.montant_paye == Decimal("2000")  # applied once
    await _assert_credit_said(db, session["paiementId"], member, treasurer, "2 000 FCFA",
                              dues.numero_reference, confirmed["numeroRecu"])
    account = (await client.get("/api/compte-adherent/me", headers=member.headers)).json()
    assert account["credit"] == "2000.00"


async def test_declaration_confirmed_after_the_dues_was_paid_becomes_credit_said(client, factory, db, wave):
    org, treasurer, member = await _org(factory)
    dues = await cotisation(db, member.membre, org, 2000)
    declaration = await _declare(client, member, dues)
    counter = await client.post("/api/paiements", headers=treasurer.headers, json={
        "membreId": str(member.membre.id), "organisationId": str(org.id), "montant": "2000",
        "methode": "ESPECES", "cibles": [{"cotisationId": str(dues.id)}]})
    assert counter.status_code == 201, counter.text

    confirmed = await client.post(f"/api/paiements/{declaration['paiementId']}/confirmer",
                                  headers=treasurer.headers, json={})
    assert confirmed.status_code == 200, confirmed.text
    assert confirmed.json()["avoirCree"] == "2000.00"
    await _assert_credit_said(db, declaration["paiementId"], member, treasurer, "2 000 FCFA",
                              dues.numero_reference, counter.json()["numeroRecu"])


async def test_a_payment_fully_applied_says_nothing_about_credit(client, factory, db, wave):
    org, treasurer, member = await _org(factory)
    dues = await cotisation(db, member.membre, org, 2000)
    declaration = await _declare(client, member, dues)
    await client.post(f"/api/paiements/{declaration['paiementId']}/confirmer", headers=treasurer.headers, json={})
    assert await _audit(db, declaration["paiementId"]) == []
    assert await _notices(db, member.membre.id) == [] and await _notices(db, treasurer.membre.id) == []
