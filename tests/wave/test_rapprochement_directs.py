"""Wave money booked without a checkout session (a transfer to the organisation's Wave number, recorded at the
counter or declared and confirmed, with its Wave transaction id) is reconciled too (issue 28, item 4): by its
transaction id, else by amount and date when exactly one payment fits; its fee booked once; missing from the
statement, listed as absent; never two payments on one line."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from decimal import Decimal

from tests.factories.cotisations import cotisation
from tests.wave.test_rapprochement import _frais_6317, _key

EN_TETE = ("Horodatage;Identifiant de transaction;Type de transaction;Montant;Frais;Solde;Devise;Référence client;"
           "Identifiant de session API\n")


class _Paiement:
    def __init__(self, body: dict) -> None:
        self.id = body["id"]


async def _transfert(client, treasurer, db, org, member, montant: str, reference: str) -> _Paiement:
    """A Wave transfer to the organisation's number recorded at the counter with its transaction id."""
    dues = await cotisation(db, member.membre, org, montant)
    paid = await client.post("/api/paiements", headers=treasurer.headers, json={
        "membreId": str(member.membre.id), "organisationId": str(org.id), "montant": montant,
        "methode": "WAVE_TRANSFERT", "referenceExterne": reference, "cibles": [{"cotisationId": str(dues.id)}]})
    assert paid.status_code == 201, paid.text
    return _Paiement(paid.json())


async def test_direct_wave_transfers_are_matched_fees_booked_and_missing_ones_listed(client, factory, db, wave):
    org = await factory.organisation()
    treasurer = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    member = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    assert (await client.post("/api/wave/comptes", headers=treasurer.headers, json={
        "organisationId": str(org.id), "libelle": "Compte marchand", "numeroTelephone": "+221771112233",
        "cleApi": wave.api_key})).status_code == 201
    by_id = await _transfert(client, treasurer, db, org, member, "2000", "T_DIRECT0001")
    by_amount = await _transfert(client, treasurer, db, org, member, "3000", "T_FAUTEDEFRAPPE")
    missing = await _transfert(client, treasurer, db, org, member, "4000", "T_DIRECT0003")
    twins = [await _transfert(client, treasurer, db, org, member, "1500", f"T_JUMEAU000{i}") for i in (1, 2)]
    now = datetime.now(UTC).isoformat().replace("+00:00", "Z")
    csv_text = EN_TETE + (f"{now};T_DIRECT0001;merchant_payment;1980;20;1980;XOF;;\n"
                          f"{now};T_LIGNE0002;merchant_payment;2970;30;4950;XOF;;\n"
                          f"{now};T_LIGNE0004;merchant_payment;1485;15;6435;XOF;;\n")
    uploaded = await client.post("/api/wave/releves", headers=treasurer.headers, data={"organisationId": str(org.id)},
                                 files={"fichier": ("releve.csv", csv_text.encode(), "text/csv")})
    assert uploaded.status_code == 201, uploaded.text
    releve = uploaded.json()["id"]
    done = await client.post(f"/api/wave/releves/{releve}/rapprocher", headers={**treasurer.headers, **_key()})
    assert done.status_code == 200, done.text
    result = done.json()
    # By transaction id and by amount and date: matched; the 1,500 line fits two payments: left unknown.
    assert (result["lignesRapprochees"], result["lignesInconnues"]) == (2, 1), result
    assert result["fraisComptabilises"] == "50.00"
    lignes = (await client.get(f"/api/wave/releves/{releve}/lignes", headers=treasurer.headers)).json()["content"]
    assert {(lg["transactionId"], lg["statut"], lg["paiementId"]) for lg in lignes} == {
        ("T_DIRECT0001", "RAPPROCHEE", str(by_id.id)), ("T_LIGNE0002", "RAPPROCHEE", str(by_amount.id)),
        ("T_LIGNE0004", "INCONNUE", None)}
    # Ours, missing from Wave's statement: listed as absent.
    assert {a["paiementId"] for a in result["absentes"]} == {str(missing.id), *(str(t.id) for t in twins)}
    assert {a["referenceWave"] for a in result["absentes"] if a["paiementId"] == str(missing.id)} == {"T_DIRECT0003"}
    # Reconciled again: no fee booked twice, no payment matched to a second line.
    again = (await client.post(f"/api/wave/releves/{releve}/rapprocher",
                               headers={**treasurer.headers, **_key()})).json()
    assert again["fraisComptabilises"] == "0.00" and again["lignesRapprochees"] == 2
    assert sorted(lg.debit for lg in await _frais_6317(db, org)) == [Decimal("20.00"), Decimal("30.00")]
    assert uuid.UUID(result["id"])


async def test_an_unknown_line_is_booked_to_an_account_by_two_people(client, factory, db, wave):
    org = await factory.organisation()
    treasurer = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    president = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "PRESIDENT"])
    dons = await client.post("/api/comptabilite/comptes", headers=treasurer.headers, json={
        "organisationId": str(org.id), "numeroCompte": "7581", "libelle": "Dons reçus"})
    now = datetime.now(UTC).isoformat().replace("+00:00", "Z")
    csv_text = EN_TETE + f"{now};T_DON0001;merchant_payment;9900;100;9900;XOF;;\n"
    releve = (await client.post("/api/wave/releves", headers=treasurer.headers, data={"organisationId": str(org.id)},
                                files={"fichier": ("releve.csv", csv_text.encode(), "text/csv")})).json()["id"]
    url = f"/api/wave/releves/{releve}"
    first = (await client.post(f"{url}/rapprocher", headers={**treasurer.headers, **_key()})).json()
    assert first["lignesInconnues"] == 1
    (ligne,) = (await client.get(f"{url}/lignes", headers=treasurer.headers)).json()["content"]
    body = {"compteId": dons.json()["id"], "libelle": "Don anonyme reçu sur le numéro Wave"}
    asked = await client.post(f"{url}/lignes/{ligne['id']}/comptabiliser", headers={**treasurer.headers, **_key()},
                              json=body)
    assert asked.status_code == 202, asked.text
    demande = asked.json()
    assert {(lg["numeroCompte"], lg["debit"], lg["credit"]) for lg in demande["lignes"]} == {
        ("5521", "9900.00", "0.00"), ("6317", "100.00", "0.00"), ("7581", "0.00", "10000.00")}
    twice = await client.post(f"{url}/lignes/{ligne['id']}/comptabiliser", headers={**treasurer.headers, **_key()},
                              json=body)
    assert twice.status_code == 409
    # Until a second person approves, the line stays unknown.
    still = (await client.post(f"{url}/rapprocher", headers={**treasurer.headers, **_key()})).json()
    assert still["lignesInconnues"] == 1
    approved = await client.post(f"/api/comptabilite/demandes-ecritures/{demande['id']}/approuver",
                                 headers=president.headers, json={})
    assert approved.status_code == 200, approved.text
    done = (await client.post(f"{url}/rapprocher", headers={**treasurer.headers, **_key()})).json()
    assert (done["lignesInconnues"], done["lignesRapprochees"], done["fraisComptabilises"]) == (0, 1, "0.00")
    assert [lg.debit for lg in await _frais_6317(db, org)] == [Decimal("100.00")]
