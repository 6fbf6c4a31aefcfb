"""Editing and deactivating a treasury and an organisation's Wave account through the API: a treasury holding
money is never deactivated (French reason, nothing changes), a deactivated one takes no payout; every change is
audited; the Wave account's change asks its organisation's permission."""

from __future__ import annotations

import uuid

from sqlalchemy import select

from tests.factories.tresoreries import declarer, org_avec_encaissement, versement
from unionflow.models import AuditLog, CompteWave, Tresorerie


async def test_a_treasury_holding_money_is_not_deactivated_and_a_deactivated_one_takes_no_payout(
        client, factory, db):
    org, treasurer, _, _ = await org_avec_encaissement(client, factory, db, "20000")
    declared = await client.post("/api/tresoreries", headers=treasurer.headers,
                                 json=declarer(org, "CAISSE", "Caisse", "571"))
    caisse = await db.get(Tresorerie, uuid.UUID(declared.json()["id"]))
    refused = await client.put(f"/api/tresoreries/{caisse.id}", headers=treasurer.headers, json={"actif": False})
    assert refused.status_code == 400 and "solde de 20" in refused.json()["detail"], refused.text
    assert "virez-le avant de la désactiver" in refused.json()["detail"]
    await db.refresh(caisse)
    assert caisse.actif

    bank = (await client.post("/api/tresoreries", headers=treasurer.headers,
                              json=declarer(org, "BANQUE", "CBAO", "5211", decouvertAutorise="50000"))).json()
    edited = await client.put(f"/api/tresoreries/{bank['id']}", headers=treasurer.headers,
                              json={"nom": "CBAO Plateau", "decouvertAutorise": "75000"})
    assert edited.status_code == 200 and edited.json()["decouvertAutorise"] == "75000.00", edited.text
    off = await client.put(f"/api/tresoreries/{bank['id']}", headers=treasurer.headers, json={"actif": False})
    assert off.status_code == 200 and off.json()["actif"] is False
    payout = await client.post("/api/versements", headers=treasurer.headers,
                               json=versement(org, "1000", tresorerieId=bank["id"]))
    assert payout.status_code == 400 and "désactivée" in payout.json()["detail"], payout.text
    back = await client.put(f"/api/tresoreries/{bank['id']}", headers=treasurer.headers, json={"actif": True})
    assert back.status_code == 200 and back.json()["actif"] is True
    audited = list((await db.execute(select(AuditLog.type_action).where(AuditLog.entite_id == bank["id"]))).scalars())
    assert audited.count("MODIFIER") == 3


async def test_the_wave_account_is_deactivated_reactivated_and_guarded_by_its_organisation(client, factory, db):
    org = await factory.organisation()
    treasurer = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    other = await factory.organisation()
    stranger = await factory.actor(["USER"], organisation=other, org_roles=["MEMBRE", "TRESORIER"])
    created = (await client.post("/api/wave/comptes", headers=treasurer.headers, json={
        "organisationId": str(org.id), "libelle": "Wave Business", "numeroTelephone": "+221771112233",
        "cleApi": "wave_sn_prod_KEY12345678"})).json()
    url = f"/api/wave/comptes/{created['id']}"
    off = await client.put(url, headers=treasurer.headers, json={"statut": "INACTIF"})
    assert off.status_code == 200 and off.json()["statut"] == "INACTIF" and off.json()["cleApiIndice"] == "••••5678"
    assert (await client.put(url, headers=treasurer.headers, json={"statut": "ACTIF"})).json()["statut"] == "ACTIF"
    foreign = await client.put(url, headers=stranger.headers, json={"statut": "INACTIF"})
    assert foreign.status_code == 404, foreign.text
    assert (await client.delete(url, headers=stranger.headers)).status_code == 404
    compte = await db.get(CompteWave, uuid.UUID(created["id"]))
    await db.refresh(compte)
    assert compte.statut == "ACTIF"
    audited = list((await db.execute(select(AuditLog.type_action).where(
        AuditLog.entite_id == created["id"]))).scalars())
    assert audited.count("MODIFIER") == 2
