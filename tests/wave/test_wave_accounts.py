from __future__ import annotations

from sqlalchemy import select

from tests.factories.cotisations import cotisation
from unionflow.models import AuditLog
from unionflow.wave.simulateur import completed_event, signed_webhook


async def test_accounts_crud_never_return_secrets(client, factory, db):
    org = await factory.organisation()
    treasurer = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    member = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    created = await client.post("/api/wave/comptes", headers=treasurer.headers, json={
        "organisationId": str(org.id), "libelle": "Compte marchand", "numeroTelephone": "+221771112233",
        "cleApi": "wave_sn_prod_SECRETKEY1234", "secretWebhook": "whsec_SECRETHOOK9876"})
    assert created.status_code == 201, created.text
    body = created.json()
    assert body["cleApiIndice"] == "••••1234" and body["secretWebhookIndice"] == "••••9876"
    assert "SECRETKEY" not in created.text and "SECRETHOOK" not in created.text
    listed = await client.get("/api/wave/comptes", headers=treasurer.headers)
    assert listed.headers["X-Total-Count"] == "1" and "SECRET" not in listed.text
    duplicate = await client.post("/api/wave/comptes", headers=treasurer.headers, json={
        "organisationId": str(org.id), "libelle": "Doublon", "numeroTelephone": "+221771112233"})
    assert duplicate.status_code == 409
    rotated = await client.put(f"/api/wave/comptes/{body['id']}", headers=treasurer.headers,
                               json={"cleApi": "wave_sn_prod_NEWKEY5678"})
    assert rotated.json()["cleApiIndice"] == "••••5678"
    entries = (await db.execute(select(AuditLog).where(AuditLog.entite_id == body["id"]))).scalars().all()
    assert entries and all("SECRET" not in str(e.details) and "NEWKEY" not in str(e.details) for e in entries)
    assert (await client.get("/api/wave/comptes", headers=member.headers)).status_code == 403
    deleted = await client.delete(f"/api/wave/comptes/{body['id']}", headers=treasurer.headers)
    assert deleted.status_code == 204
    after = (await client.get(f"/api/wave/comptes/{body['id']}", headers=treasurer.headers)).json()
    assert after["statut"] == "INACTIF" and after["cleApiIndice"] is None


async def test_organisation_account_is_used_for_checkout_and_its_webhook_secret(client, factory, db, wave):
    org = await factory.organisation()
    treasurer = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    member = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    await client.post("/api/wave/comptes", headers=treasurer.headers, json={
        "organisationId": str(org.id), "libelle": "Compte de l'association", "numeroTelephone": "+221771112299",
        "cleApi": "org-own-key-0001", "secretWebhook": "org-own-webhook-secret"})
    dues = await cotisation(db, member.membre, org, 2500)
    # The fake server only knows the union's key: the organisation's key is refused there.
    refused = await client.post("/api/paiements/wave/checkout", headers=member.headers, json={
        "organisationId": str(org.id), "cibles": [{"cotisationId": str(dues.id)}]})
    assert refused.status_code == 502
    assert wave.requests[-1][2]["authorization"] == "Bearer org-own-key-0001"
    wave.api_key = "org-own-key-0001"
    try:
        body = (await client.post("/api/paiements/wave/checkout", headers=member.headers, json={
            "organisationId": str(org.id), "cibles": [{"cotisationId": str(dues.id)}]})).json()
        raw, headers = signed_webhook("org-own-webhook-secret", completed_event(wave.complete(body["checkoutId"])))
        applied = await client.post("/api/paiements/wave/webhook", content=raw, headers=headers)
        assert applied.json()["resultat"] == "APPLIQUE"
        balance = await client.get("/api/wave/solde", headers=treasurer.headers)
        assert balance.status_code == 200 and balance.json()["montant"] == f"{wave.balance}.00"
    finally:
        wave.api_key = "wave-test-key"
    journal = await client.get("/api/wave/transactions", headers=treasurer.headers,
                               params={"paiementId": body["paiementId"]})
    assert {t["typeTransaction"] for t in journal.json()["content"]} == {"CHECKOUT", "PAIEMENT_RECU"}
