from __future__ import annotations

import uuid

from sqlalchemy import select

from tests.factories.cotisations import cotisation
from unionflow.models import AuditLog, Versement


async def _org_with_collected_dues(client, factory, db, amount="20000"):
    org = await factory.organisation()
    treasurer = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    president = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "ADMIN_ORGANISATION"])
    member = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    dues = await cotisation(db, member.membre, org, amount)
    paid = await client.post("/api/paiements", headers=treasurer.headers, json={
        "membreId": str(member.membre.id), "organisationId": str(org.id), "montant": amount,
        "methode": "ESPECES", "cibles": [{"cotisationId": str(dues.id)}]})
    assert paid.status_code == 201, paid.text
    return org, treasurer, president, member


def _payout(org, montant="15000", **extra):
    return {"organisationId": str(org.id), "montant": montant, "mode": "WAVE", "objetType": "COTISATIONS",
            "motif": "Reversement des cotisations à la fédération", "beneficiaireNom": "Fédération de Dakar",
            "beneficiaireTelephone": "+221770000001", **extra}


async def test_wave_payout_created_then_confirmed_by_another_person(client, factory, db, wave):
    org, treasurer, president, _ = await _org_with_collected_dues(client, factory, db)
    created = await client.post("/api/versements", headers=treasurer.headers, json=_payout(org))
    assert created.status_code == 201, created.text
    body = created.json()
    assert body["statut"] == "EN_COURS" and body["payoutId"] is None and body["numero"].startswith("VER-")
    row = (await db.execute(select(Versement).where(Versement.id == uuid.UUID(body["id"])))).scalar_one()
    stored_key = row.cle_idempotence
    assert stored_key and not wave.payouts  # key stored before Wave is ever called

    self_confirm = await client.post(f"/api/versements/{body['id']}/confirmer", headers=treasurer.headers)
    assert self_confirm.status_code == 403
    confirmed = await client.post(f"/api/versements/{body['id']}/confirmer", headers=president.headers)
    assert confirmed.status_code == 200, confirmed.text
    assert confirmed.json()["statut"] == "REUSSI" and confirmed.json()["payoutId"].startswith("pt-")
    sent = [r for r in wave.requests if r[1] == "/v1/payout"]
    assert len(sent) == 1 and sent[0][2]["idempotency-key"] == stored_key
    again = await client.post(f"/api/versements/{body['id']}/confirmer", headers=president.headers)
    assert again.status_code == 400
    actions = set((await db.execute(select(AuditLog.type_action).where(AuditLog.entite_id == body["id"]))).scalars())
    assert actions == {"CREER", "VERSEMENT_REUSSI"}

    journal = await client.get("/api/wave/transactions", headers=treasurer.headers,
                               params={"typeTransaction": "VERSER"})
    assert [t["versementId"] for t in journal.json()["content"]] == [body["id"]]


async def test_retry_after_wave_failure_reuses_the_key_and_pays_once(client, factory, db, wave):
    org, treasurer, president, _ = await _org_with_collected_dues(client, factory, db)
    body = (await client.post("/api/versements", headers=treasurer.headers, json=_payout(org))).json()
    wave.fail_next.append(500)
    failed = await client.post(f"/api/versements/{body['id']}/confirmer", headers=president.headers)
    assert failed.status_code == 502
    assert (await client.get(f"/api/versements/{body['id']}", headers=treasurer.headers)).json()["statut"] == "EN_COURS"
    retried = await client.post(f"/api/versements/{body['id']}/confirmer", headers=president.headers)
    assert retried.json()["statut"] == "REUSSI"
    keys = {r[2]["idempotency-key"] for r in wave.requests if r[1] == "/v1/payout"}
    assert len(keys) == 1 and len(wave.payouts) == 1


async def test_failed_payout_and_balance_rule(client, factory, db, wave):
    org, treasurer, president, _ = await _org_with_collected_dues(client, factory, db, "10000")
    too_much = await client.post("/api/versements", headers=treasurer.headers, json=_payout(org, "12000"))
    assert too_much.status_code == 400 and "Solde insuffisant" in too_much.text
    wave.failing_mobiles.add("+221770000009")
    body = (await client.post("/api/versements", headers=treasurer.headers,
                              json=_payout(org, "8000", beneficiaireTelephone="+221770000009"))).json()
    # While it is in progress it counts against the balance.
    second = await client.post("/api/versements", headers=treasurer.headers, json=_payout(org, "5000"))
    assert second.status_code == 400
    result = await client.post(f"/api/versements/{body['id']}/confirmer", headers=president.headers)
    assert result.json()["statut"] == "ECHOUE" and "recipient-account-blocked" in result.json()["motifEchec"]
    # A failed payout frees the balance.
    assert (await client.post("/api/versements", headers=treasurer.headers, json=_payout(org, "5000"))
            ).status_code == 201


async def test_manual_payout_cancel_and_visibility(client, factory, db, wave):
    org, treasurer, president, member = await _org_with_collected_dues(client, factory, db)
    manual = {**_payout(org, "3000"), "mode": "MANUEL", "beneficiaireTelephone": None}
    body = (await client.post("/api/versements", headers=treasurer.headers, json=manual)).json()
    no_ref = await client.post(f"/api/versements/{body['id']}/confirmer", headers=president.headers, json={})
    assert no_ref.status_code == 400
    done = await client.post(f"/api/versements/{body['id']}/confirmer", headers=president.headers,
                             json={"referenceExterne": "VIR-BICIS-889"})
    assert done.json()["statut"] == "REUSSI" and done.json()["referenceExterne"] == "VIR-BICIS-889"
    cancel_done = await client.post(f"/api/versements/{body['id']}/annuler", headers=treasurer.headers,
                                    json={"motif": "Erreur"})
    # A delivered payout is undone only on a second person's approval (issue 19): the request waits.
    assert cancel_done.status_code == 202 and cancel_done.json()["statut"] == "EN_ATTENTE"
    confirmer_approves = await client.post(f"/api/annulations/{cancel_done.json()['id']}/approuver",
                                           headers=president.headers, json={})
    assert confirmer_approves.status_code == 403
    assert (await client.get(f"/api/versements/{body['id']}", headers=treasurer.headers)).json()["statut"] == "REUSSI"
    other = (await client.post("/api/versements", headers=treasurer.headers, json=_payout(org, "1000"))).json()
    cancelled = await client.post(f"/api/versements/{other['id']}/annuler", headers=treasurer.headers,
                                  json={"motif": "Bénéficiaire erroné"})
    assert cancelled.json()["statut"] == "ANNULE"
    assert (await client.post(f"/api/versements/{other['id']}/confirmer", headers=president.headers)
            ).status_code == 400

    assert (await client.get("/api/versements", headers=member.headers)).status_code == 403
    outsider_org = await factory.organisation()
    outsider = await factory.actor(["USER"], organisation=outsider_org, org_roles=["MEMBRE", "TRESORIER"])
    assert (await client.get(f"/api/versements/{body['id']}", headers=outsider.headers)).status_code == 404
    assert (await client.get("/api/versements", headers=outsider.headers)).json()["totalElements"] == 0
    listed = await client.get("/api/versements", headers=treasurer.headers, params={"statut": "ANNULE"})
    assert [v["id"] for v in listed.json()["content"]] == [other["id"]]
    wave_without_phone = await client.post("/api/versements", headers=treasurer.headers,
                                           json={**_payout(org, "1000"), "beneficiaireTelephone": None})
    assert wave_without_phone.status_code == 400
