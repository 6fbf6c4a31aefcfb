"""Wave reconciliation against the loopback Wave server: a statement with fees, a line we do not know and a payment
Wave does not have; imported from GET /v1/transactions (several pages) and from the portal's CSV; fees booked once
to 6317; the Wave account's book balance beside Wave's; /api/wave/solde on the shared account."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from decimal import Decimal

from sqlalchemy import select

from tests.factories.cotisations import cotisation
from unionflow.models import AuditLog, CompteComptable, LigneEcriture
from unionflow.wave.simulateur import completed_event, signed_webhook

SECRET = "wave-test-webhook-secret"


async def _pay(client, wave, member, org, dues) -> dict:
    body = (await client.post("/api/paiements/wave/checkout", headers=member.headers, json={
        "organisationId": str(org.id), "cibles": [{"cotisationId": str(dues.id)}]})).json()
    raw, headers = signed_webhook(SECRET, completed_event(wave.complete(body["checkoutId"])))
    assert (await client.post("/api/paiements/wave/webhook", content=raw, headers=headers)).json()[
        "resultat"] == "APPLIQUE"
    return wave.sessions[body["checkoutId"]]


async def _frais_6317(db, org) -> list[LigneEcriture]:
    return list((await db.execute(select(LigneEcriture).join(CompteComptable).where(
        CompteComptable.organisation_id == org.id, CompteComptable.numero_compte == "6317"))).scalars())


def _key() -> dict[str, str]:
    return {"Idempotency-Key": str(uuid.uuid4())}


async def test_statement_with_fees_an_unknown_line_and_a_payment_wave_lacks(client, factory, db, wave):
    org = await factory.organisation()
    treasurer = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    auditor = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "COMMISSAIRE_AUX_COMPTES"])
    member = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    # The organisation's own Wave account (the loopback server knows its key).
    assert (await client.post("/api/wave/comptes", headers=treasurer.headers, json={
        "organisationId": str(org.id), "libelle": "Compte marchand", "numeroTelephone": "+221771112233",
        "cleApi": wave.api_key})).status_code == 201
    wave.fee_percent, wave.page_size, wave.opening, wave.balance = 1, 1, 0, 0
    first = await _pay(client, wave, member, org, await cotisation(db, member.membre, org, 2500))
    second = await _pay(client, wave, member, org, await cotisation(db, member.membre, org, 5000))
    wave.hidden.add(second["transaction_id"])  # a payment of ours Wave does not have
    now = datetime.now(UTC).isoformat().replace("+00:00", "Z")
    wave.extra_transactions.append({  # a line we do not know
        "timestamp": now, "transaction_id": "T_INCONNU0001", "transaction_type": "merchant_payment",
        "amount": "990", "fee": "10", "currency": "XOF", "counterparty_name": "Awa Ndiaye",
        "counterparty_mobile": "+221770001122"})
    today = datetime.now(UTC).date().isoformat()

    imported = await client.post("/api/wave/releves/depuis-wave", headers=treasurer.headers,
                                 json={"organisationId": str(org.id), "date": today})
    assert imported.status_code == 201, imported.text
    releve = imported.json()
    assert releve["source"] == "API" and releve["nombreLignes"] == 2 and releve["soldeWave"] == "3465.00"
    assert sum(1 for r in wave.requests if r[1] == "/v1/transactions") == 2  # two pages through the cursor
    again = await client.post("/api/wave/releves/depuis-wave", headers=treasurer.headers,
                              json={"organisationId": str(org.id), "date": today})
    assert again.status_code == 409 and again.json()["releveId"] == releve["id"]

    denied = await client.post(f"/api/wave/releves/{releve['id']}/rapprocher", headers={**auditor.headers, **_key()})
    assert denied.status_code == 403
    done = await client.post(f"/api/wave/releves/{releve['id']}/rapprocher", headers={**treasurer.headers, **_key()})
    assert done.status_code == 200, done.text
    result = done.json()
    assert (result["lignesRapprochees"], result["lignesInconnues"], result["operationsAbsentes"]) == (1, 1, 1)
    assert result["fraisComptabilises"] == "25.00" and result["comptePartage"] is False
    assert result["absentes"][0]["referenceWave"] == second["transaction_id"]
    assert result["absentes"][0]["montant"] == "5000.00"
    # Books: 2 500 + 5 000 received, 25 of fees → 7 475; Wave says 3 465 (2 475 + the unknown 990).
    assert (result["soldeComptable"], result["soldeWave"], result["ecart"]) == ("7475.00", "3465.00", "4010.00")
    assert [(lg.debit, lg.credit) for lg in await _frais_6317(db, org)] == [(Decimal("25.00"), Decimal("0.00"))]

    # Read-only for the auditor: the statement, its lines, the last reconciliation.
    detail = (await client.get(f"/api/wave/releves/{releve['id']}", headers=auditor.headers)).json()
    assert detail["lignesParStatut"] == {"RAPPROCHEE": 1, "INCONNUE": 1}
    assert detail["dernierRapprochement"]["id"] == result["id"]
    unknown = (await client.get(f"/api/wave/releves/{releve['id']}/lignes", headers=auditor.headers,
                                params={"statut": "INCONNUE"})).json()["content"]
    assert [(u["transactionId"], u["contrepartieNom"]) for u in unknown] == [("T_INCONNU0001", "Awa Ndiaye")]

    # Reconciling again books nothing twice.
    twice = (await client.post(f"/api/wave/releves/{releve['id']}/rapprocher",
                               headers={**treasurer.headers, **_key()})).json()
    assert twice["fraisComptabilises"] == "0.00" and len(await _frais_6317(db, org)) == 1

    # The portal's CSV (French headers, ";") brings the missing payment, and the first one again.
    csv_text = ("Horodatage;Identifiant de transaction;Type de transaction;Montant;Frais;Solde;Devise;"
                "Référence client;Identifiant de session API\n"
                f"{now};{first['transaction_id']};api_checkout;2475;25;2475;XOF;{first['client_reference']};"
                f"{first['id']}\n"
                f"{now};{second['transaction_id']};api_checkout;4950;50;8415;XOF;{second['client_reference']};"
                f"{second['id']}\n")
    uploaded = await client.post("/api/wave/releves", headers=treasurer.headers, data={"organisationId": str(org.id)},
                                 files={"fichier": ("releve.csv", csv_text.encode(), "text/csv")})
    assert uploaded.status_code == 201, uploaded.text
    assert (uploaded.json()["nombreLignes"], uploaded.json()["lignesDejaConnues"]) == (1, 1)
    matched = (await client.post(f"/api/wave/releves/{uploaded.json()['id']}/rapprocher",
                                 headers={**treasurer.headers, **_key()})).json()
    assert (matched["lignesRapprochees"], matched["operationsAbsentes"], matched["fraisComptabilises"]) == (
        1, 0, "50.00")
    assert len(await _frais_6317(db, org)) == 2
    actions = set((await db.execute(select(AuditLog.type_action).where(AuditLog.organisation_id == org.id))).scalars())
    assert {"IMPORTER_RELEVE", "RAPPROCHER"} <= actions


async def test_csv_refused_with_the_reason(client, factory):
    org = await factory.organisation()
    treasurer = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    bad = await client.post("/api/wave/releves", headers=treasurer.headers, data={"organisationId": str(org.id)},
                            files={"fichier": ("r.csv", b"Nom;Prenom\nA;B\n", "text/csv")})
    assert bad.status_code == 400 and "transaction_id" in bad.json()["detail"]
    unreadable = await client.post(
        "/api/wave/releves", headers=treasurer.headers, data={"organisationId": str(org.id)},
        files={"fichier": ("r.csv", b"transaction_id,timestamp,amount\nT_1,2026-01-05T10:00:00Z,douze\n", "text/csv")})
    assert unreadable.status_code == 400 and "ligne 2" in unreadable.json()["detail"]


async def test_solde_on_the_shared_account_answers_the_organisation_figures(client, factory, db, wave):
    org = await factory.organisation()
    treasurer = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    member = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    await _pay(client, wave, member, org, await cotisation(db, member.membre, org, 2500))
    shared = await client.get("/api/wave/solde", headers=treasurer.headers)
    assert shared.status_code == 200, shared.text
    body = shared.json()
    assert body["comptePartage"] is True and body["origineMontant"] == "COMPTABLE" and body["soldeWave"] is None
    assert body["montant"] == body["soldeComptable"] == "2500.00" and "partagé" in body["message"]
    admin = await factory.actor(["ADMIN"])
    union = (await client.get("/api/wave/solde", headers=admin.headers,
                              params={"organisationId": str(org.id)})).json()
    assert union["origineMontant"] == "WAVE" and union["soldeWave"] == f"{wave.balance}.00"
    assert union["comptePartage"] is True and union["ecart"] is None


async def test_payout_on_the_shared_account_and_other_organisations_lines(client, factory, db, wave):
    org = await factory.organisation()
    treasurer = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    president = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "ADMIN_ORGANISATION"])
    member = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    dues = await cotisation(db, member.membre, org, 20000)
    assert (await client.post("/api/paiements", headers=treasurer.headers, json={
        "membreId": str(member.membre.id), "organisationId": str(org.id), "montant": "20000", "methode": "ESPECES",
        "cibles": [{"cotisationId": str(dues.id)}]})).status_code == 201
    wave.payout_fee = 100
    payout = (await client.post("/api/versements", headers=treasurer.headers, json={
        "organisationId": str(org.id), "montant": "15000", "mode": "WAVE", "objetType": "COTISATIONS",
        "motif": "Reversement à la fédération", "beneficiaireNom": "Fédération de Dakar",
        "beneficiaireTelephone": "+221770000001"})).json()
    confirmed = await client.post(f"/api/versements/{payout['id']}/confirmer", headers=president.headers)
    assert confirmed.json()["statut"] == "REUSSI", confirmed.text
    # Another organisation's Wave payment on the same shared account.
    other = await factory.organisation()
    other_member = await factory.actor(["USER"], organisation=other, org_roles=["MEMBRE"])
    await _pay(client, wave, other_member, other, await cotisation(db, other_member.membre, other, 3000))

    releve = (await client.post("/api/wave/releves/depuis-wave", headers=treasurer.headers, json={
        "organisationId": str(org.id), "date": datetime.now(UTC).date().isoformat()})).json()
    assert (releve["compteWaveId"], releve["nombreLignes"], releve["lignesAutresOrganisations"]) == (None, 1, 1)
    result = (await client.post(f"/api/wave/releves/{releve['id']}/rapprocher",
                                headers={**treasurer.headers, **_key()})).json()
    assert (result["lignesRapprochees"], result["lignesInconnues"], result["operationsAbsentes"]) == (1, 0, 0)
    assert result["fraisComptabilises"] == "100.00" and result["comptePartage"] is True and result["ecart"] is None
    ligne = (await client.get(f"/api/wave/releves/{releve['id']}/lignes", headers=treasurer.headers)).json()
    assert ligne["content"][0]["versementId"] == payout["id"] and ligne["content"][0]["montant"] == "-15100.00"
    assert [(lg.debit, lg.credit) for lg in await _frais_6317(db, org)] == [(Decimal("100.00"), Decimal("0.00"))]


async def test_a_line_with_another_amount_books_nothing_and_is_not_also_absent(client, factory, db, wave):
    org = await factory.organisation()
    treasurer = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    member = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    paid = await _pay(client, wave, member, org, await cotisation(db, member.membre, org, 2500))
    csv_text = ("transaction_id,timestamp,transaction_type,amount,fee,currency,client_reference\n"
                f"{paid['transaction_id']},{paid['when_completed']},api_checkout,\"2 375,00\",25,XOF,"
                f"{paid['client_reference']}\n")
    releve = (await client.post("/api/wave/releves", headers=treasurer.headers, data={"organisationId": str(org.id)},
                                files={"fichier": ("wave.csv", csv_text.encode(), "text/csv")})).json()
    result = (await client.post(f"/api/wave/releves/{releve['id']}/rapprocher",
                                headers={**treasurer.headers, **_key()})).json()
    assert (result["lignesMontantDifferent"], result["operationsAbsentes"], result["fraisComptabilises"]) == (
        1, 0, "0.00")
    assert await _frais_6317(db, org) == []
