"""The payments workbook totals only valid money (issue 20, item 5): "Total" is what was collected (validated
payments); cancelled and refunded receipts have their own rows, a pending declaration is not collected. Read
back with openpyxl, every figure equals the JSON list of payments filtered by status."""

from __future__ import annotations

import io
from decimal import Decimal

from openpyxl import load_workbook

from tests.factories.cotisations import cotisation
from tests.factories.paiements import defaire

BASE = "/api/export"


async def _payer(client, db, org, tresorier, membre, montant: str, methode: str = "ESPECES") -> dict:
    dues = await cotisation(db, membre.membre, org, montant)
    body = {"membreId": str(membre.membre.id), "organisationId": str(org.id), "montant": montant,
            "methode": methode, "cibles": [{"cotisationId": str(dues.id)}]}
    if methode == "VIREMENT":
        body["referenceExterne"] = "VIR-20"
    paid = await client.post("/api/paiements", headers=tresorier.headers, json=body)
    assert paid.status_code == 201, paid.text
    return paid.json()


async def _json_total(client, tresorier, org, statut: str) -> tuple[Decimal, int]:
    page = (await client.get("/api/paiements", headers=tresorier.headers, params={
        "organisationId": str(org.id), "statut": statut, "size": 100})).json()
    rows = page["content"]
    assert page["totalElements"] == len(rows)
    return sum((Decimal(str(p["montant"])) for p in rows), Decimal(0)), len(rows)


async def test_payments_workbook_totals_valid_money_and_shows_cancelled_and_refunded_apart(client, factory, db):
    org = await factory.organisation(nom="Mutuelle de Ziguinchor")
    tresorier = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    president = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "PRESIDENT"])
    membre = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    for montant in ("2500", "5000", "1000000"):
        await _payer(client, db, org, tresorier, membre, montant)
    annule = await _payer(client, db, org, tresorier, membre, "7500")
    assert (await defaire(client, f"/api/paiements/{annule['id']}/annuler", tresorier, president)).status_code == 200
    rembourse = await _payer(client, db, org, tresorier, membre, "4000", "VIREMENT")
    done = await defaire(client, f"/api/paiements/{rembourse['id']}/rembourser", tresorier, president)
    assert done.status_code == 200, done.text
    # The member declares a payment the treasury has not yet confirmed: pending, not collected.
    dues = await cotisation(db, membre.membre, org, "1500")
    declared = await client.put(f"/api/cotisations/{dues.id}/payer", headers=membre.headers,
                                json={"montant": "1500", "methodePaiement": "ESPECES"})
    assert declared.status_code in (200, 201, 202), declared.text

    response = await client.get(f"{BASE}/paiements", headers=tresorier.headers,
                                params={"format": "xlsx", "organisationId": str(org.id)})
    assert response.status_code == 200, response.text
    sheet = load_workbook(io.BytesIO(response.content)).active
    rows = {r[0]: r for r in sheet.iter_rows(min_row=2, values_only=True)}
    montant, statut = 8, 7
    attendu = {"Total": "VALIDE", "Annulés": "ANNULE", "Remboursés": "REMBOURSE", "Non encaissés": "EN_ATTENTE"}
    for libelle, code in attendu.items():
        total, nombre = await _json_total(client, tresorier, org, code)
        assert Decimal(str(rows[libelle][montant])) == total, (libelle, rows[libelle], total)
        assert rows[libelle][statut].endswith(f"— {nombre} ligne(s)"), rows[libelle]
    assert Decimal(str(rows["Total"][montant])) == Decimal("1007500")
    assert Decimal(str(rows["Annulés"][montant])) == Decimal("7500")
    assert Decimal(str(rows["Remboursés"][montant])) == Decimal("4000")
    assert Decimal(str(rows["Non encaissés"][montant])) == Decimal("1500")
    # Values, not formulas: what Excel shows is what the API computed; bold and in FCFA.
    total_row = next(r for r in sheet.iter_rows(min_row=2) if r[0].value == "Total")
    assert total_row[montant].font.bold and "FCFA" in total_row[montant].number_format
    assert not any(isinstance(c.value, str) and c.value.startswith("=") for r in sheet.iter_rows() for c in r)
    # The per-row statuses, in words, agree with the totals' split.
    statuts = [r[statut] for r in sheet.iter_rows(min_row=2, values_only=True) if r[0] not in attendu]
    assert sorted(statuts) == sorted(["Validé"] * 3 + ["Annulé", "Remboursé", "En attente"])


async def test_csv_payments_export_stays_one_row_per_payment(client, factory, db):
    """The CSV is data for other tools: no totals rows a program would read as payments."""
    org = await factory.organisation()
    tresorier = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    membre = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    await _payer(client, db, org, tresorier, membre, "2500")
    response = await client.get(f"{BASE}/paiements", headers=tresorier.headers,
                                params={"organisationId": str(org.id)})
    lines = response.content.decode("utf-8-sig").strip().split("\r\n")
    assert len(lines) == 2 and int(response.headers["x-total-count"]) == 1
