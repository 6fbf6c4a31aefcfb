"""Period locking and fiscal-year closing: nothing dated in a closed period by hand, money still collected, the
year's result carried to 131/139, the income statement of the closed year intact."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

from sqlalchemy import select

from tests.factories.comptabilite import compte, ecriture, journal, passer
from tests.factories.cotisations import cotisation
from unionflow.models import EcritureComptable

TODAY = datetime.now(UTC).date()
LAST_YEAR = TODAY.year - 1


async def _books(client, factory):
    org = await factory.organisation()
    treasurer = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    od = await journal(client, treasurer.headers, org.id, "OD", "OPERATIONS_DIVERSES")
    comptes = {n: (await compte(client, treasurer.headers, org.id, n, libelle))["id"] for n, libelle in (
        ("521", "Banque"), ("6222", "Locations"), ("7581", "Dons reçus"))}
    return org, treasurer, od, comptes


async def _post(client, factory, org, headers, od, lignes, day):
    return await passer(client, factory, org, headers, ecriture(od["id"], lignes, day.isoformat()))


async def test_closing_a_year_carries_its_result_and_locks_it(client, factory, db):
    org, treasurer, od, c = await _books(client, factory)
    assert (await _post(client, factory, org, treasurer.headers, od,
                        [(c["521"], "300000", "0"), (c["7581"], "0", "300000")],
                        date(LAST_YEAR, 3, 1))).status_code == 200
    assert (await _post(client, factory, org, treasurer.headers, od,
                        [(c["6222"], "120000", "0"), (c["521"], "0", "120000")],
                        date(LAST_YEAR, 6, 1))).status_code == 200
    base = "/api/comptabilite"
    q = f"organisationId={org.id}"

    closed = await client.post(f"{base}/exercices/{LAST_YEAR}/cloture", headers=treasurer.headers,
                               json={"organisationId": str(org.id)})
    assert closed.status_code == 201, closed.text
    assert closed.json()["statut"] == "CLOTURE" and Decimal(closed.json()["resultat"]) == Decimal("180000")
    again = await client.post(f"{base}/exercices/{LAST_YEAR}/cloture", headers=treasurer.headers,
                              json={"organisationId": str(org.id)})
    assert again.status_code == 409
    current = await client.post(f"{base}/exercices/{TODAY.year}/cloture", headers=treasurer.headers,
                                json={"organisationId": str(org.id)})
    assert current.status_code == 400 and "pas terminé" in current.json()["detail"]
    exercices = (await client.get(f"{base}/exercices?{q}", headers=treasurer.headers)).json()
    assert {e["annee"]: e["statut"] for e in exercices}[LAST_YEAR] == "CLOTURE"

    fin = date(LAST_YEAR, 12, 31)
    bilan = (await client.get(f"{base}/etats/bilan?{q}&dateFin={fin}", headers=treasurer.headers)).json()
    fonds = next(r for r in bilan["passif"] if r["rubrique"].startswith("Fonds"))
    assert [(p["numeroCompte"], Decimal(p["montant"])) for p in fonds["postes"]] == [("131", Decimal("180000"))]
    en_cours = next(r for r in bilan["passif"] if r["rubrique"].startswith("Résultat"))
    assert Decimal(en_cours["total"]) == 0 and bilan["equilibre"] is True
    resultat = (await client.get(f"{base}/etats/compte-resultat?{q}&dateDebut={date(LAST_YEAR, 1, 1)}"
                                 f"&dateFin={fin}", headers=treasurer.headers)).json()
    assert Decimal(resultat["resultat"]) == Decimal("180000")  # the closing entry is not counted as activity

    late = await _post(client, factory, org, treasurer.headers, od, [(c["6222"], "5000", "0"), (c["521"], "0", "5000")],
                       date(LAST_YEAR, 12, 30))
    assert late.status_code == 400 and "close" in late.json()["detail"]
    verrou = (await client.get(f"{base}/verrouillage?{q}", headers=treasurer.headers)).json()
    assert verrou["dateVerrouillage"] == fin.isoformat()
    back = await client.put(f"{base}/verrouillage", headers=treasurer.headers,
                            json={"organisationId": str(org.id), "dateVerrouillage": str(fin - timedelta(days=40))})
    assert back.status_code == 400


async def test_a_year_is_closed_after_the_previous_one(client, factory, db):
    org, treasurer, od, c = await _books(client, factory)
    for year in (LAST_YEAR - 1, LAST_YEAR):
        assert (await _post(client, factory, org, treasurer.headers, od,
                            [(c["521"], "1000", "0"), (c["7581"], "0", "1000")],
                            date(year, 5, 5))).status_code == 200
    refused = await client.post(f"/api/comptabilite/exercices/{LAST_YEAR}/cloture", headers=treasurer.headers,
                                json={"organisationId": str(org.id)})
    assert refused.status_code == 400 and str(LAST_YEAR - 1) in refused.json()["detail"]
    member = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    forbidden = await client.post(f"/api/comptabilite/exercices/{LAST_YEAR - 1}/cloture", headers=member.headers,
                                  json={"organisationId": str(org.id)})
    assert forbidden.status_code == 403


async def test_money_received_in_a_locked_period_is_booked_on_the_first_open_day(client, factory, db):
    org, treasurer, od, c = await _books(client, factory)
    locked = await client.put("/api/comptabilite/verrouillage", headers=treasurer.headers,
                              json={"organisationId": str(org.id), "dateVerrouillage": TODAY.isoformat()})
    assert locked.status_code == 200, locked.text
    manual = await _post(client, factory, org, treasurer.headers, od,
                         [(c["521"], "1000", "0"), (c["7581"], "0", "1000")], TODAY)
    assert manual.status_code == 400

    member = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    dues = await cotisation(db, member.membre, org, 5000)
    paid = await client.post("/api/paiements", headers=treasurer.headers, json={
        "membreId": str(member.membre.id), "organisationId": str(org.id), "montant": "5000", "methode": "ESPECES",
        "cibles": [{"cotisationId": str(dues.id)}]})
    assert paid.status_code == 201, paid.text  # collection is never refused
    entry = (await db.execute(select(EcritureComptable).where(
        EcritureComptable.piece_reference == paid.json()["numeroRecu"]))).scalar_one()
    assert entry.date_ecriture == TODAY + timedelta(days=1)
