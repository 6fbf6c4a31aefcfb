"""The whole Wave path over HTTP: member, approved adhesion and dues rows → checkout on the fake Wave server →
signed webhook (tampered, then twice) → dues paid once → receipt PDF → audit → member dashboard."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta

from sqlalchemy import select

from tests.factories.cotisations import adhesion, cotisation
from tests.pdf import pdf_text
from unionflow.models import AuditLog, Paiement, TransactionWave, WaveCheckout
from unionflow.wave.simulateur import completed_event, signed_webhook

SECRET = "wave-test-webhook-secret"
WEBHOOK = "/api/paiements/wave/webhook"


async def _member(factory):
    org = await factory.organisation(nom="Mutuelle des Enseignants de Thiès")
    member = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    return org, member


async def test_full_wave_path(client, factory, db, wave):
    org, member = await _member(factory)
    adh = await adhesion(db, member.membre, org, 10000)
    dues = await cotisation(db, member.membre, org, 5000)

    checkout = await client.post("/api/paiements/wave/checkout", headers=member.headers, json={
        "organisationId": str(org.id), "cibles": [{"adhesionId": str(adh.id)}, {"cotisationId": str(dues.id)}]})
    assert checkout.status_code == 201, checkout.text
    body = checkout.json()
    assert body["waveLaunchUrl"].startswith("https://pay.wave.com/c/") and body["montant"] == "15000.00"
    session = wave.sessions[body["checkoutId"]]
    assert session["amount"] == "15000" and session["client_reference"] == body["paiementId"]
    create_call = next(r for r in wave.requests if r[0] == "POST" and r[1] == "/v1/checkout/sessions")
    assert create_call[2]["idempotency-key"] == body["paiementId"]

    pending = await client.get(f"/api/paiements/{body['paiementId']}", headers=member.headers)
    assert pending.json()["statut"] == "EN_ATTENTE"
    no_receipt = await client.get(f"/api/paiements/{body['paiementId']}/recu", headers=member.headers)
    assert no_receipt.status_code == 400

    paid = wave.complete(body["checkoutId"])
    event = completed_event(paid)

    tampered, headers = signed_webhook(SECRET, event, tamper=True)
    rejected = await client.post(WEBHOOK, content=tampered, headers=headers)
    assert rejected.status_code == 401
    assert (await client.get(f"/api/paiements/{body['paiementId']}", headers=member.headers)
            ).json()["statut"] == "EN_ATTENTE"

    raw, headers = signed_webhook(SECRET, event)
    first = await client.post(WEBHOOK, content=raw, headers=headers)
    assert first.status_code == 200 and first.json()["resultat"] == "APPLIQUE", first.text
    again = await client.post(WEBHOOK, content=raw, headers=headers)
    assert again.status_code == 200 and again.json()["resultat"] == "DEJA_TRAITE"

    detail = (await client.get(f"/api/paiements/{body['paiementId']}", headers=member.headers)).json()
    assert detail["statut"] == "VALIDE" and detail["referenceExterne"] == paid["transaction_id"]
    assert {a["montant"] for a in detail["allocations"]} == {"10000.00", "5000.00"}
    await db.refresh(dues)
    await db.refresh(adh)
    assert (dues.statut, dues.montant_paye) == ("PAYEE", 5000) and adh.statut == "PAYEE"
    payments = (await db.execute(select(Paiement).where(Paiement.membre_id == member.membre.id))).scalars().all()
    assert len(payments) == 1

    receipt = await client.get(f"/api/paiements/{body['paiementId']}/recu", headers=member.headers)
    assert receipt.status_code == 200 and receipt.headers["content-type"] == "application/pdf"
    # Issue 19: the checkout only had its DEC- reference; the receipt number came with Wave's confirmation.
    assert body["numeroRecu"].startswith("DEC-") and detail["numeroRecu"].startswith("REC-")
    assert detail["referenceDeclaration"] == body["numeroRecu"] and detail["recuPar"] == "Wave"
    assert receipt.content.startswith(b"%PDF") and detail["numeroRecu"] in pdf_text(receipt.content)

    actions = set((await db.execute(select(AuditLog.type_action).where(
        AuditLog.entite_id.in_([body["paiementId"], str(dues.id), str(adh.id)])))).scalars())
    assert {"OUVRIR_PAIEMENT_WAVE", "VALIDER_PAIEMENT", "PAYER"} <= actions
    journal = set((await db.execute(select(TransactionWave.type_transaction).where(
        TransactionWave.organisation_id == org.id))).scalars())
    assert journal == {"CHECKOUT", "PAIEMENT_RECU"}

    dashboard = await client.get("/api/dashboard/membre/me", headers=member.headers)
    assert dashboard.status_code == 200, dashboard.text
    dash = dashboard.json()
    assert dash["cotisations"]["nombreAPayer"] == 0 and dash["aJour"] is True
    assert dash["cotisations"]["montantPaye"] == "5000.00"
    assert dash["derniersPaiements"][0]["numeroRecu"] == detail["numeroRecu"]


async def test_failed_event_after_success_is_ignored(client, factory, db, wave):
    org, member = await _member(factory)
    dues = await cotisation(db, member.membre, org, 3000)
    body = (await client.post("/api/paiements/wave/checkout", headers=member.headers, json={
        "organisationId": str(org.id), "cibles": [{"cotisationId": str(dues.id)}]})).json()
    paid = wave.complete(body["checkoutId"])
    raw, headers = signed_webhook(SECRET, completed_event(paid))
    assert (await client.post(WEBHOOK, content=raw, headers=headers)).json()["resultat"] == "APPLIQUE"
    raw, headers = signed_webhook(SECRET, completed_event({**paid, "payment_status": "failed"},
                                                          event_type="checkout.session.payment_failed"))
    late = await client.post(WEBHOOK, content=raw, headers=headers)
    assert late.status_code == 200 and late.json()["resultat"] == "IGNORE"
    detail = (await client.get(f"/api/paiements/{body['paiementId']}", headers=member.headers)).json()
    assert detail["statut"] == "VALIDE"


async def test_payment_failed_event_closes_pending_payment(client, factory, db, wave):
    org, member = await _member(factory)
    dues = await cotisation(db, member.membre, org, 3000)
    body = (await client.post("/api/paiements/wave/checkout", headers=member.headers, json={
        "organisationId": str(org.id), "cibles": [{"cotisationId": str(dues.id)}]})).json()
    failed = wave.fail(body["checkoutId"])
    raw, headers = signed_webhook(SECRET, completed_event(failed, event_type="checkout.session.payment_failed"))
    response = await client.post(WEBHOOK, content=raw, headers=headers)
    assert response.json()["resultat"] == "ECHEC_ENREGISTRE"
    detail = (await client.get(f"/api/paiements/{body['paiementId']}", headers=member.headers)).json()
    assert detail["statut"] == "ECHOUE"
    await db.refresh(dues)
    assert dues.statut == "EN_ATTENTE" and dues.montant_paye == 0
    # The customer retries inside the same Wave session and succeeds: the money is applied, not lost.
    raw, headers = signed_webhook(SECRET, completed_event(wave.complete(body["checkoutId"])))
    late_success = await client.post(WEBHOOK, content=raw, headers=headers)
    assert late_success.json()["resultat"] == "APPLIQUE"
    await db.refresh(dues)
    assert dues.statut == "PAYEE"
    other = await cotisation(db, member.membre, org, 1000)
    dues = other
    # Another dues can be paid with a new session.
    retry = await client.post("/api/paiements/wave/checkout", headers=member.headers, json={
        "organisationId": str(org.id), "cibles": [{"cotisationId": str(dues.id)}]})
    assert retry.status_code == 201


async def test_webhook_amount_mismatch_or_unpaid_session_credits_nothing(client, factory, db, wave):
    org, member = await _member(factory)
    dues = await cotisation(db, member.membre, org, 3000)
    body = (await client.post("/api/paiements/wave/checkout", headers=member.headers, json={
        "organisationId": str(org.id), "cibles": [{"cotisationId": str(dues.id)}]})).json()
    session = dict(wave.sessions[body["checkoutId"]])
    # Correctly signed but claims a different amount.
    raw, headers = signed_webhook(SECRET, completed_event({**session, "amount": "300", "payment_status": "succeeded"}))
    assert (await client.post(WEBHOOK, content=raw, headers=headers)).json()["resultat"] == "ANOMALIE"
    # Correctly signed and consistent, but Wave's API says the session is not paid.
    raw, headers = signed_webhook(SECRET, completed_event({**session, "payment_status": "succeeded"}))
    assert (await client.post(WEBHOOK, content=raw, headers=headers)).json()["resultat"] == "ANOMALIE"
    await db.refresh(dues)
    assert dues.statut == "EN_ATTENTE"
    warnings = (await db.execute(select(AuditLog).where(AuditLog.type_action == "SIGNALER_ANOMALIE_WAVE",
                                                        AuditLog.entite_id == body["paiementId"]))).scalars().all()
    assert len(warnings) == 2 and all(w.severite == "WARNING" for w in warnings)


async def test_webhook_signature_rules(client, factory, db, wave):
    event = {"id": "EV_sig", "type": "checkout.session.completed", "data": {"id": "cos-x"}}
    stale, headers = signed_webhook(SECRET, event, timestamp=int(time.time()) - 301)
    assert (await client.post(WEBHOOK, content=stale, headers=headers)).status_code == 401
    future, headers = signed_webhook(SECRET, event, timestamp=int(time.time()) + 301)
    assert (await client.post(WEBHOOK, content=future, headers=headers)).status_code == 401
    wrong, headers = signed_webhook("another-secret", event)
    assert (await client.post(WEBHOOK, content=wrong, headers=headers)).status_code == 401
    assert (await client.post(WEBHOOK, content=wrong)).status_code == 401
    garbled = await client.post(WEBHOOK, content=wrong, headers={"Wave-Signature": "garbage"})
    assert garbled.status_code == 401 and "illisible" in garbled.json()["detail"]
    incomplete = await client.post(WEBHOOK, content=wrong, headers={"Wave-Signature": "t=12"})
    assert incomplete.status_code == 401
    # Several v1 values (secret rotation): any one may match.
    raw, headers = signed_webhook(SECRET, event)
    t, v1 = headers["Wave-Signature"].split(",")
    rotated = {"Wave-Signature": f"{t},v1={'0' * 64},{v1}"}
    accepted = await client.post(WEBHOOK, content=raw, headers=rotated)
    assert accepted.status_code == 200 and accepted.json()["resultat"] == "ANOMALIE"  # unknown session


async def test_wave_down_or_failing_creates_nothing(client, factory, db, wave, app, monkeypatch):
    org, member = await _member(factory)
    dues = await cotisation(db, member.membre, org, 3000)
    payload = {"organisationId": str(org.id), "cibles": [{"cotisationId": str(dues.id)}]}
    wave.fail_next.append(500)
    bad = await client.post("/api/paiements/wave/checkout", headers=member.headers, json=payload)
    assert bad.status_code == 502 and bad.headers["content-type"].startswith("application/problem+json")
    monkeypatch.setattr(app.state.settings, "wave_api_base_url", "http://127.0.0.1:9")
    down = await client.post("/api/paiements/wave/checkout", headers=member.headers, json=payload)
    assert down.status_code == 503
    rows = (await db.execute(select(Paiement).where(Paiement.membre_id == member.membre.id))).scalars().all()
    assert rows == []


async def test_webhook_is_not_applied_when_wave_cannot_confirm(client, factory, db, wave):
    org, member = await _member(factory)
    dues = await cotisation(db, member.membre, org, 3000)
    body = (await client.post("/api/paiements/wave/checkout", headers=member.headers, json={
        "organisationId": str(org.id), "cibles": [{"cotisationId": str(dues.id)}]})).json()
    raw, headers = signed_webhook(SECRET, completed_event(wave.complete(body["checkoutId"])))
    wave.fail_next.append(503)
    failed = await client.post(WEBHOOK, content=raw, headers=headers)
    assert failed.status_code == 502
    await db.refresh(dues)
    assert dues.statut == "EN_ATTENTE"
    # Wave redelivers the same event later: it was not marked processed, so it applies now.
    retried = await client.post(WEBHOOK, content=raw, headers=headers)
    assert retried.json()["resultat"] == "APPLIQUE"


async def test_expire_then_sync_and_refund(client, factory, db, wave):
    org, member = await _member(factory)
    treasurer = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    dues = await cotisation(db, member.membre, org, 4000)
    payload = {"organisationId": str(org.id), "cibles": [{"cotisationId": str(dues.id)}]}
    first = (await client.post("/api/paiements/wave/checkout", headers=member.headers, json=payload)).json()
    busy = await client.post("/api/paiements/wave/checkout", headers=member.headers, json=payload)
    assert busy.status_code == 409
    expired = await client.post(f"/api/paiements/{first['paiementId']}/wave/expirer", headers=member.headers)
    assert expired.status_code == 200 and expired.json()["statut"] == "EXPIRE"
    assert wave.sessions[first["checkoutId"]]["checkout_status"] == "expired"

    second = (await client.post("/api/paiements/wave/checkout", headers=member.headers, json=payload)).json()
    wave.complete(second["checkoutId"])
    synced = await client.post(f"/api/paiements/{second['paiementId']}/wave/synchroniser", headers=member.headers)
    assert synced.json()["statut"] == "VALIDE"
    await db.refresh(dues)
    assert dues.statut == "PAYEE"

    member_refund = await client.post(f"/api/paiements/{second['paiementId']}/rembourser",
                                      headers=member.headers, json={"motif": "Double paiement"})
    assert member_refund.status_code == 403
    president = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "PRESIDENT"])
    asked = await client.post(f"/api/paiements/{second['paiementId']}/rembourser",
                              headers=treasurer.headers, json={"motif": "Double paiement"})
    assert asked.status_code == 202, asked.text
    # Nothing goes to Wave before a second person approves (issue 19).
    assert wave.sessions[second["checkoutId"]]["payment_status"] != "refunded"
    refunded = await client.post(f"/api/annulations/{asked.json()['id']}/approuver", headers=president.headers,
                                 json={})
    assert refunded.status_code == 200, refunded.text
    detail = (await client.get(f"/api/paiements/{second['paiementId']}", headers=treasurer.headers)).json()
    assert detail["statut"] == "REMBOURSE"
    assert wave.sessions[second["checkoutId"]]["payment_status"] == "refunded"
    await db.refresh(dues)
    assert (dues.statut, dues.montant_paye) == ("EN_ATTENTE", 0)
    entry = (await db.execute(select(AuditLog).where(AuditLog.entite_id == second["paiementId"],
                                                     AuditLog.type_action == "PAIEMENT_REMBOURSE"))).scalar_one()
    assert entry.severite == "WARNING"


async def test_checkout_idempotency_and_paying_for_someone_else(client, factory, db, wave):
    org, member = await _member(factory)
    other = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    treasurer = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    dues = await cotisation(db, member.membre, org, 2000)
    payload = {"organisationId": str(org.id), "cibles": [{"cotisationId": str(dues.id)}]}

    foreign = await client.post("/api/paiements/wave/checkout", headers=other.headers, json=payload)
    assert foreign.status_code == 404
    on_behalf_by_member = await client.post("/api/paiements/wave/checkout", headers=other.headers,
                                            json={**payload, "membreId": str(member.membre.id)})
    assert on_behalf_by_member.status_code == 404

    headers = {**treasurer.headers, "Idempotency-Key": "guichet-42"}
    body = {**payload, "membreId": str(member.membre.id)}
    first = await client.post("/api/paiements/wave/checkout", headers=headers, json=body)
    second = await client.post("/api/paiements/wave/checkout", headers=headers, json=body)
    assert first.status_code == second.status_code == 201, first.text
    assert first.json() == second.json() and len(wave.sessions) == 1
    changed = await client.post("/api/paiements/wave/checkout", headers=headers,
                                json={**body, "cibles": [{"cotisationId": str(dues.id), "montant": "1000"}]})
    assert changed.status_code == 422
    listed = await client.get("/api/paiements/mes-paiements", headers=member.headers,
                              params={"statut": "EN_ATTENTE", "methode": "WAVE"})
    assert [p["id"] for p in listed.json()["content"]] == [first.json()["paiementId"]]
    assert listed.json()["content"][0]["waveLaunchUrl"] == first.json()["waveLaunchUrl"]


async def test_expired_session_no_longer_blocks_a_new_checkout(client, factory, db, wave):
    org, member = await _member(factory)
    dues = await cotisation(db, member.membre, org, 2000)
    payload = {"organisationId": str(org.id), "cibles": [{"cotisationId": str(dues.id)}]}
    first = (await client.post("/api/paiements/wave/checkout", headers=member.headers, json=payload)).json()
    checkout = (await db.execute(select(WaveCheckout).where(
        WaveCheckout.checkout_id == first["checkoutId"]))).scalar_one()
    checkout.when_expires = datetime.now(UTC) - timedelta(minutes=1)
    await db.flush()
    # Past its expiry locally, but Wave still says open: keep blocking.
    assert (await client.post("/api/paiements/wave/checkout", headers=member.headers, json=payload)
            ).status_code == 409
    wave.sessions[first["checkoutId"]]["checkout_status"] = "expired"
    second = await client.post("/api/paiements/wave/checkout", headers=member.headers, json=payload)
    assert second.status_code == 201, second.text
    old = (await client.get(f"/api/paiements/{first['paiementId']}", headers=member.headers)).json()
    assert old["statut"] == "EXPIRE"


async def test_refund_refused_by_wave_changes_nothing(client, factory, db, wave):
    org, member = await _member(factory)
    treasurer = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    dues = await cotisation(db, member.membre, org, 2000)
    body = (await client.post("/api/paiements/wave/checkout", headers=member.headers, json={
        "organisationId": str(org.id), "cibles": [{"cotisationId": str(dues.id)}]})).json()
    raw, headers = signed_webhook(SECRET, completed_event(wave.complete(body["checkoutId"])))
    await client.post(WEBHOOK, content=raw, headers=headers)
    president = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "PRESIDENT"])
    asked = await client.post(f"/api/paiements/{body['paiementId']}/rembourser", headers=treasurer.headers,
                              json={"motif": "Demande du membre"})
    assert asked.status_code == 202, asked.text
    wave.fail_next.append(500)
    refused = await client.post(f"/api/annulations/{asked.json()['id']}/approuver", headers=president.headers,
                                json={})
    assert refused.status_code == 502
    still = await client.get(f"/api/annulations/{asked.json()['id']}", headers=treasurer.headers)
    assert still.json()["statut"] == "EN_ATTENTE"
    cancel = await client.post(f"/api/paiements/{body['paiementId']}/annuler", headers=treasurer.headers,
                               json={"motif": "Erreur"})
    assert cancel.status_code == 400
    await db.refresh(dues)
    assert dues.statut == "PAYEE"
    detail = (await client.get(f"/api/paiements/{body['paiementId']}", headers=member.headers)).json()
    assert detail["statut"] == "VALIDE"
