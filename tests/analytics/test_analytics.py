"""Indicators through HTTP, checked to the unit on small hand-computed data sets, with their scope rules."""

from __future__ import annotations

import uuid
from datetime import date, timedelta

import pytest

from tests.factories import add
from tests.factories.analytics import (
    BASE,
    evenement,
    membership,
    nouveau_paiement,
    nouvelle_adhesion,
    nouvelle_cotisation,
    utc,
)
from unionflow.cotisations.service import today_utc


@pytest.fixture
async def setup(factory):
    org_a = await factory.organisation(nom="Alpha")
    org_b = await factory.organisation(nom="Beta")
    admin = await factory.actor(["ADMIN"], with_membre=False)
    treasurer = await factory.actor(["USER"], organisation=org_a, org_roles=["MEMBRE", "TRESORIER"])
    return org_a, org_b, admin, treasurer


def month(body, key):
    return next(m for m in body["mois"] if m["mois"] == key)


async def test_membership_growth_per_month(client, factory, setup):
    org_a, org_b, admin, treasurer = setup
    await membership(factory, org_a, date(2024, 6, 1))  # active on 1 January
    await membership(factory, org_a, date(2024, 3, 1), date(2025, 2, 10))  # active on 1 January, leaves in Feb
    await membership(factory, org_a, date(2024, 1, 1), date(2024, 12, 31))  # gone before the year
    await membership(factory, org_a, date(2025, 1, 15))
    await membership(factory, org_a, date(2025, 1, 20), date(2025, 3, 5))
    await membership(factory, org_a, date(2025, 3, 31))
    await membership(factory, org_b, date(2025, 1, 10))

    response = await client.get(f"{BASE}/membres/croissance", params={"annee": 2025}, headers=treasurer.headers)
    assert response.status_code == 200, response.text
    body = response.json()
    assert (body["effectifDebut"], body["totalNouveaux"], body["totalRadiations"], body["effectifFin"]) == (2, 3, 2, 3)
    assert [(m["mois"], m["nouveaux"], m["radiations"], m["net"], m["effectif"]) for m in body["mois"][:4]] == [
        ("2025-01", 2, 0, 2, 4), ("2025-02", 0, 1, -1, 3), ("2025-03", 1, 1, 0, 3), ("2025-04", 0, 0, 0, 3)]
    assert len(body["mois"]) == 12 and body["mois"][11] == {"mois": "2025-12", "nouveaux": 0, "radiations": 0,
                                                             "net": 0, "effectif": 3}

    response = await client.get(f"{BASE}/membres/croissance", params={"annee": 2025, "organisationId": str(org_b.id)},
                                headers=admin.headers)
    body = response.json()
    assert body["organisationId"] == str(org_b.id)
    assert (body["effectifDebut"], body["totalNouveaux"], body["effectifFin"]) == (0, 1, 1)


async def test_dues_collection_per_month(client, factory, setup):
    org_a, org_b, admin, treasurer = setup
    m = await factory.membre(None)
    await add(factory,
              nouvelle_cotisation(m, org_a, date(2025, 1, 31), "5000", "5000", "PAYEE"),
              nouvelle_cotisation(m, org_a, date(2025, 1, 31), "5000", "2000", "PARTIELLEMENT_PAYEE"),
              nouvelle_cotisation(m, org_a, date(2025, 2, 28), "3000", "0", "EN_RETARD"),
              nouvelle_cotisation(m, org_a, date(2025, 2, 28), "3000", "0", "ANNULEE"),
              nouvelle_cotisation(m, org_a, date(2025, 3, 15), "1000.50", "1000.50", "PAYEE"),
              nouvelle_cotisation(m, org_a, date(2025, 1, 31), "100", "0", devise="EUR"),
              nouvelle_cotisation(m, org_a, date(2026, 1, 31), "777", "0"),
              nouvelle_cotisation(m, org_b, date(2025, 1, 31), "9999", "0"))
    response = await client.get(f"{BASE}/cotisations/recouvrement", params={"annee": 2025},
                                headers=treasurer.headers)
    assert response.status_code == 200, response.text
    body = response.json()
    assert (body["nombre"], body["montantDu"], body["montantPaye"], body["tauxRecouvrement"]) == (
        4, "14000.50", "8000.50", "57.14")
    assert month(body, "2025-01") == {"mois": "2025-01", "nombre": 2, "montantDu": "10000.00",
                                      "montantPaye": "7000.00", "tauxRecouvrement": "70.00"}
    assert month(body, "2025-02")["tauxRecouvrement"] == "0.00"
    assert month(body, "2025-03")["tauxRecouvrement"] == "100.00"
    assert month(body, "2025-04") == {"mois": "2025-04", "nombre": 0, "montantDu": "0.00", "montantPaye": "0.00",
                                      "tauxRecouvrement": None}
    euros = await client.get(f"{BASE}/cotisations/recouvrement", params={"annee": 2025, "devise": "EUR"},
                             headers=treasurer.headers)
    assert euros.json()["montantDu"] == "100.00"
    everything = await client.get(f"{BASE}/cotisations/recouvrement", params={"annee": 2025}, headers=admin.headers)
    assert month(everything.json(), "2025-01")["montantDu"] == "19999.00"


async def test_payments_by_method_and_month(client, factory, setup):
    org_a, org_b, admin, treasurer = setup
    m = await factory.membre(None)
    await add(factory,
              nouveau_paiement(m, org_a, "5000", "WAVE", utc(2025, 1, 10, 9)),
              nouveau_paiement(m, org_a, "2000", "WAVE", utc(2025, 1, 31, 23, 30)),  # still January in UTC
              nouveau_paiement(m, org_a, "1000.50", "ESPECES", utc(2025, 3, 15, 8)),
              nouveau_paiement(m, org_a, "700", "ESPECES", utc(2025, 3, 16, 8), statut="ECHOUE"),
              nouveau_paiement(m, org_a, "400", "WAVE", utc(2025, 3, 17, 8), statut="REMBOURSE"),
              nouveau_paiement(m, org_a, "300", "WAVE", utc(2024, 12, 31, 23, 59)),
              nouveau_paiement(m, org_b, "9999", "WAVE", utc(2025, 1, 12, 8)))
    response = await client.get(f"{BASE}/paiements", params={"annee": 2025}, headers=treasurer.headers)
    assert response.status_code == 200, response.text
    body = response.json()
    assert (body["nombre"], body["montant"]) == (3, "8000.50")
    assert body["parMethode"] == [{"methode": "WAVE", "nombre": 2, "montant": "7000.00"},
                                  {"methode": "ESPECES", "nombre": 1, "montant": "1000.50"}]
    assert [(p["mois"], p["nombre"], p["montant"]) for p in body["parMois"][:4]] == [
        ("2025-01", 2, "7000.00"), ("2025-02", 0, "0.00"), ("2025-03", 1, "1000.50"), ("2025-04", 0, "0.00")]
    response = await client.get(f"{BASE}/paiements", params={"annee": 2025, "organisationId": str(org_b.id)},
                                headers=admin.headers)
    assert response.json()["parMethode"] == [{"methode": "WAVE", "nombre": 1, "montant": "9999.00"}]


async def test_adhesions_funnel(client, factory, setup):
    org_a, org_b, _admin, treasurer = setup
    m = await factory.membre(None)
    await add(factory,
              nouvelle_adhesion(m, org_a, "EN_ATTENTE", date(2025, 2, 1)),
              nouvelle_adhesion(m, org_a, "APPROUVEE", date(2025, 2, 2), approuvee=True),
              nouvelle_adhesion(m, org_a, "PAYEE", date(2025, 3, 1), approuvee=True, paye="10000"),
              nouvelle_adhesion(m, org_a, "REJETEE", date(2025, 3, 2)),
              nouvelle_adhesion(m, org_a, "ANNULEE", date(2025, 4, 1), approuvee=True),
              nouvelle_adhesion(m, org_a, "ANNULEE", date(2025, 4, 2)),
              nouvelle_adhesion(m, org_a, "PAYEE", date(2024, 12, 31), approuvee=True, paye="10000"),
              nouvelle_adhesion(m, org_b, "PAYEE", date(2025, 3, 1), approuvee=True, paye="10000"))
    response = await client.get(f"{BASE}/adhesions/entonnoir", params={"dateDebut": "2025-01-01",
                                                                       "dateFin": "2025-12-31"},
                                headers=treasurer.headers)
    assert response.status_code == 200, response.text
    body = response.json()
    assert {k: body[k] for k in ("soumises", "enAttente", "approuvees", "rejetees", "payees", "annulees")} == {
        "soumises": 6, "enAttente": 1, "approuvees": 3, "rejetees": 1, "payees": 1, "annulees": 2}
    assert (body["tauxApprobation"], body["tauxPaiement"], body["fraisEncaisses"]) == ("75.00", "33.33", "10000.00")
    # Without a period: every request of the organisation.
    response = await client.get(f"{BASE}/adhesions/entonnoir", headers=treasurer.headers)
    assert (response.json()["soumises"], response.json()["fraisEncaisses"]) == (7, "20000.00")
    response = await client.get(f"{BASE}/adhesions/entonnoir", params={"dateDebut": "2025-02-01",
                                                                       "dateFin": "2025-01-01"},
                                headers=treasurer.headers)
    assert response.status_code == 400


async def test_events_attendance(client, factory, setup):
    org_a, org_b, _admin, treasurer = setup
    await evenement(factory, org_a, utc(2025, 5, 10, 9), 10, inscriptions={"CONFIRMEE": 6},
                    notes={"PUBLIE": [4, 5], "EN_ATTENTE": [1]})
    await evenement(factory, org_a, utc(2025, 5, 20, 9), None, inscriptions={"CONFIRMEE": 3, "ANNULEE": 1})
    await evenement(factory, org_a, utc(2025, 5, 25, 9), 5, statut="ANNULE", inscriptions={"CONFIRMEE": 2},
                    notes={"PUBLIE": [1]})
    await evenement(factory, org_a, utc(2025, 5, 28, 9), 4, inscriptions={"CONFIRMEE": 4, "EN_ATTENTE": 2},
                    notes={"PUBLIE": [3]})
    await evenement(factory, org_a, utc(2025, 6, 1, 9), 100, inscriptions={"CONFIRMEE": 1})
    await evenement(factory, org_b, utc(2025, 5, 12, 9), 50, inscriptions={"CONFIRMEE": 1})
    response = await client.get(f"{BASE}/evenements/participation",
                                params={"dateDebut": "2025-05-01", "dateFin": "2025-05-31"}, headers=treasurer.headers)
    assert response.status_code == 200, response.text
    body = response.json()
    assert {k: body[k] for k in ("evenements", "annules", "capaciteTotale", "inscritsConfirmes",
                                 "inscritsSurCapacite", "listeAttente", "tauxRemplissage", "noteMoyenne",
                                 "nombreAvis")} == {
        "evenements": 3, "annules": 1, "capaciteTotale": 14, "inscritsConfirmes": 13, "inscritsSurCapacite": 10,
        "listeAttente": 2, "tauxRemplissage": "71.43", "noteMoyenne": "4.00", "nombreAvis": 3}
    empty = await client.get(f"{BASE}/evenements/participation", params={"dateDebut": "2030-01-01"},
                             headers=treasurer.headers)
    assert (empty.json()["evenements"], empty.json()["tauxRemplissage"], empty.json()["noteMoyenne"]) == (0, None, None)


async def test_overdue_ageing_buckets(client, factory, setup):
    org_a, org_b, admin, treasurer = setup
    today = today_utc()
    m1, m2 = await factory.membre(None), await factory.membre(None)

    def ago(n):
        return today - timedelta(days=n)

    await add(factory,
              nouvelle_cotisation(m1, org_a, ago(1), "1000"),
              nouvelle_cotisation(m2, org_a, ago(30), "2000", "500", "PARTIELLEMENT_PAYEE"),
              nouvelle_cotisation(m1, org_a, ago(31), "3000", statut="EN_RETARD"),
              nouvelle_cotisation(m2, org_a, ago(90), "4000"),
              nouvelle_cotisation(m1, org_a, ago(91), "5000"),
              nouvelle_cotisation(m1, org_a, today, "6000"),
              nouvelle_cotisation(m1, org_a, ago(100), "7000", "7000", "PAYEE"),
              nouvelle_cotisation(m1, org_a, ago(100), "8000", statut="ANNULEE"),
              nouvelle_cotisation(m1, org_b, ago(10), "9000"))
    response = await client.get(f"{BASE}/cotisations/anciennete-impayes", headers=treasurer.headers)
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["dateReference"] == today.isoformat()
    assert (body["nombre"], body["membres"], body["montantRestant"]) == (5, 2, "14500.00")
    assert body["tranches"] == [
        {"tranche": "0-30", "nombre": 2, "membres": 2, "montantRestant": "2500.00"},
        {"tranche": "31-60", "nombre": 1, "membres": 1, "montantRestant": "3000.00"},
        {"tranche": "61-90", "nombre": 1, "membres": 1, "montantRestant": "4000.00"},
        {"tranche": "90+", "nombre": 1, "membres": 1, "montantRestant": "5000.00"},
    ]
    beta = await client.get(f"{BASE}/cotisations/anciennete-impayes", params={"organisationId": str(org_b.id)},
                            headers=admin.headers)
    assert beta.json()["tranches"][0] == {"tranche": "0-30", "nombre": 1, "membres": 1, "montantRestant": "9000.00"}


async def test_roles_scope_and_input(client, factory, setup):
    org_a, org_b, admin, treasurer = setup
    member = await factory.actor(["MEMBRE"], organisation=org_a)
    url = f"{BASE}/cotisations/anciennete-impayes"
    assert (await client.get(url)).status_code == 401
    assert (await client.get(url, headers=member.headers)).status_code == 403
    # Outside the caller's organisations, or unknown: 404.
    assert (await client.get(url, params={"organisationId": str(org_b.id)}, headers=treasurer.headers)
            ).status_code == 404
    assert (await client.get(url, params={"organisationId": str(uuid.uuid4())}, headers=admin.headers)
            ).status_code == 404
    assert (await client.get(url, params={"organisationId": str(org_a.id)}, headers=treasurer.headers)
            ).status_code == 200
    assert (await client.get(url, params={"devise": "xof"}, headers=treasurer.headers)).status_code == 400
    assert (await client.get(f"{BASE}/paiements", params={"annee": 1999}, headers=treasurer.headers)
            ).status_code == 400
    # A member's own dues do not make a member's view: a treasurer of Alpha who is also a plain member of Beta
    # sees Alpha's figures only.
    m = await factory.membre(None)
    await add(factory, nouvelle_cotisation(m, org_b, today_utc() - timedelta(days=3), "1234"))
    body = (await client.get(url, headers=treasurer.headers)).json()
    assert body["nombre"] == 0
    year = (await client.get(f"{BASE}/paiements", headers=treasurer.headers)).json()
    assert year["annee"] == today_utc().year


@pytest.mark.postgresql_only
async def test_month_keys_ignore_the_server_time_zone(client, factory, setup, db):
    """A payment at 23:30 UTC on 31 January is January's, whatever the PostgreSQL session's TimeZone says."""
    from sqlalchemy import text

    org_a, _org_b, _admin, treasurer = setup
    m = await factory.membre(None)
    await add(factory, nouveau_paiement(m, org_a, "2000", "WAVE", utc(2025, 1, 31, 23, 30)))
    await db.execute(text("SET TIME ZONE 'Africa/Lagos'"))
    body = (await client.get(f"{BASE}/paiements", params={"annee": 2025}, headers=treasurer.headers)).json()
    assert [(p["mois"], p["nombre"]) for p in body["parMois"][:2]] == [("2025-01", 1), ("2025-02", 0)]
