from __future__ import annotations

import uuid
from datetime import timedelta
from decimal import Decimal

from sqlalchemy import func, select

from tests.factories.cotisations import BASE, cotisation_a_venir, days, treasury
from unionflow.cotisations.jobs import compter_retards, marquer_retards, marquer_retards_lot
from unionflow.cotisations.service import today_utc
from unionflow.models import AuditLog, Cotisation, MembreOrganisation, RappelCotisation

# Next year: the factory's memberships start today and dues follow the membership (issue 20).
NEXT = today_utc().year + 1


def _generation(org, **extra):
    body = {"organisationId": str(org.id), "typeCotisation": "MENSUELLE", "annee": NEXT, "mois": 4,
            "montant": "2500", "dateEcheance": f"{NEXT}-04-30"}
    body.update(extra)
    return body


async def test_generation_is_idempotent_and_targets_active_members(client, factory, db):
    org, treasurer, a, b = await treasury(factory)
    inactive = await factory.membre(org, statut="RADIE")
    left = await factory.membre(org)
    membership = (await db.execute(select(MembreOrganisation).where(
        MembreOrganisation.membre_id == left.id))).scalar_one()
    membership.statut = "INACTIF"
    await db.flush()
    first = await client.post(f"{BASE}/generer", headers=treasurer.headers, json=_generation(org))
    assert first.status_code == 200, first.text
    # treasurer, A, B: active memberships of active members
    assert first.json()["membresActifs"] == 3 and first.json()["creees"] == 3 and first.json()["ignorees"] == 0
    second = await client.post(f"{BASE}/generer", headers=treasurer.headers, json=_generation(org))
    assert second.json()["creees"] == 0 and second.json()["ignorees"] == 3
    assert "existent déjà" in second.json()["message"]
    rows = (await db.execute(select(Cotisation).where(Cotisation.organisation_id == org.id))).scalars().all()
    assert len(rows) == 3 and {r.membre_id for r in rows} == {treasurer.membre.id, a.membre.id, b.membre.id}
    assert inactive.id not in {r.membre_id for r in rows}
    assert all(r.montant_du == Decimal("2500") and r.statut == "EN_ATTENTE" and r.libelle for r in rows)
    # Another period, or a new member, is generated alongside.
    c = await factory.membre(org)
    third = await client.post(f"{BASE}/generer", headers=treasurer.headers, json=_generation(org))
    assert third.json()["creees"] == 1 and third.json()["ignorees"] == 3
    may = await client.post(f"{BASE}/generer", headers=treasurer.headers, json=_generation(org, mois=5))
    assert may.json()["creees"] == 4
    assert await db.scalar(select(func.count()).select_from(Cotisation).where(Cotisation.membre_id == c.id)) == 2
    audits = await db.scalar(select(func.count()).select_from(AuditLog).where(
        AuditLog.type_action == "GENERER", AuditLog.entite_id == str(org.id)))
    assert audits == 4


async def test_generation_permissions_and_validation(client, factory):
    org, _, a, _ = await treasury(factory)
    other_treasurer = await factory.actor(["USER"], organisation=await factory.organisation(),
                                          org_roles=["TRESORIER"])
    assert (await client.post(f"{BASE}/generer", headers=other_treasurer.headers,
                              json=_generation(org))).status_code == 403
    assert (await client.post(f"{BASE}/generer", headers=a.headers, json=_generation(org))).status_code == 403
    admin = await factory.actor(["ADMIN"], with_membre=False)
    assert (await client.post(f"{BASE}/generer", headers=admin.headers,
                              json=_generation(org, organisationId=str(uuid.uuid4())))).status_code == 404
    assert (await client.post(f"{BASE}/generer", headers=admin.headers,
                              json=_generation(org, montant="0"))).status_code == 400
    assert (await client.post(f"{BASE}/generer", headers=admin.headers,
                              json=_generation(org, typeCotisation="X"))).status_code == 400
    no_month = await client.post(f"{BASE}/generer", headers=admin.headers, json=_generation(org, mois=None))
    assert no_month.status_code == 400 and "mois" in no_month.json()["detail"], no_month.text
    ok = await client.post(f"{BASE}/generer", headers=admin.headers,
                           json=_generation(org, mois=None, typeCotisation="ANNUELLE"))
    assert ok.status_code == 200 and ok.json()["creees"] == 3


async def test_grouped_reminders_deduplicated_per_day(client, factory, db):
    org, treasurer, a, b = await treasury(factory)
    d1 = await cotisation_a_venir(factory, a.membre, org, montant="3000", echeance=days(-4))
    d2 = await cotisation_a_venir(factory, a.membre, org, montant="2000", montant_paye=Decimal("500"),
                          statut="PARTIELLEMENT_PAYEE")
    await cotisation_a_venir(factory, a.membre, org, montant_paye=Decimal("5000"), statut="PAYEE")
    await cotisation_a_venir(factory, a.membre, org, statut="ANNULEE")
    url = f"{BASE}/rappels/groupes"
    first = await client.post(url, headers=treasurer.headers, json=[str(a.membre.id), str(b.membre.id)])
    assert first.status_code == 200, first.text
    body = first.json()
    assert body["envoyes"] == 1 and body["sansImpaye"] == 1 and body["dejaEnvoyesAujourdhui"] == 0
    rappel = body["rappels"][0]
    assert rappel["membreId"] == str(a.membre.id) and set(rappel["cotisationIds"]) == {str(d1.id), str(d2.id)}
    assert Decimal(rappel["montantTotal"]) == Decimal("4500") and rappel["canal"] == "EMAIL"
    assert rappel["statut"] == "EN_ATTENTE" and rappel["destinataire"] == a.membre.email
    row = (await db.execute(select(RappelCotisation).where(RappelCotisation.membre_id == a.membre.id))).scalar_one()
    assert d1.numero_reference in row.message and row.date_rappel == today_utc()

    second = (await client.post(url, headers=treasurer.headers, json=[str(a.membre.id)])).json()
    assert second["envoyes"] == 0 and second["dejaEnvoyesAujourdhui"] == 1 and second["rappels"] == []
    d3 = await cotisation_a_venir(factory, a.membre, org, montant="1000")
    third = (await client.post(url, headers=treasurer.headers, json=[str(a.membre.id)])).json()
    assert third["envoyes"] == 1 and third["rappels"][0]["cotisationIds"] == [str(d3.id)]
    assert await db.scalar(select(func.count()).select_from(RappelCotisation).where(
        RappelCotisation.membre_id == a.membre.id)) == 2


async def test_reminders_scope_and_input(client, factory):
    org, treasurer, a, b = await treasury(factory)
    await cotisation_a_venir(factory, b.membre, org)
    url = f"{BASE}/rappels/groupes"
    assert (await client.post(url, headers=a.headers, json=[str(b.membre.id)])).status_code == 404
    stranger = await factory.membre()
    assert (await client.post(url, headers=treasurer.headers, json=[str(stranger.id)])).status_code == 404
    assert (await client.post(url, headers=treasurer.headers, json=[str(uuid.uuid4())])).status_code == 404
    assert (await client.post(url, headers=treasurer.headers, json=[])).status_code == 400
    assert (await client.post(url, headers=treasurer.headers, json={"membres": []})).status_code == 400
    assert (await client.post(url, headers=treasurer.headers, json=["pas-un-uuid"])).status_code == 400
    own = (await client.post(url, headers=a.headers, json=[str(a.membre.id)])).json()
    assert own["sansImpaye"] == 1


async def _statistics_fixture(factory):
    org, treasurer, a, b = await treasury(factory)
    await cotisation_a_venir(factory, a.membre, org, montant="10000", montant_paye=Decimal("10000"), statut="PAYEE",
                     annee=2026, mois=1, type_cotisation="MENSUELLE")
    await cotisation_a_venir(factory, a.membre, org, montant="10000", montant_paye=Decimal("2500.50"),
                     statut="PARTIELLEMENT_PAYEE", echeance=days(-3), annee=2026, mois=2)
    await cotisation_a_venir(factory, b.membre, org, montant="7500", echeance=days(-1), annee=2026, mois=2,
                     statut="EN_RETARD")
    await cotisation_a_venir(factory, b.membre, org, montant="5000", echeance=days(5), annee=2026, mois=3)
    await cotisation_a_venir(factory, b.membre, org, montant="9999", statut="ANNULEE", annee=2026, mois=3)
    await cotisation_a_venir(factory, b.membre, org, montant="20000", annee=2025, mois=None, type_cotisation="ANNUELLE",
                     montant_paye=Decimal("20000"), statut="PAYEE")
    other = await factory.organisation()
    stranger = await factory.membre(other)
    await cotisation_a_venir(factory, stranger, other, montant="123456")
    return org, treasurer, a


async def test_statistics_exact_figures(client, factory):
    _, treasurer, a = await _statistics_fixture(factory)
    stats = (await client.get(f"{BASE}/statistiques", headers=treasurer.headers)).json()
    assert stats["nombreTotal"] == 6
    assert stats["parStatut"] == {"EN_ATTENTE": 1, "PARTIELLEMENT_PAYEE": 0, "PAYEE": 2, "EN_RETARD": 2,
                                  "ANNULEE": 1}
    assert Decimal(stats["montantDu"]) == Decimal("52500")
    assert Decimal(stats["montantCollecte"]) == Decimal("32500.50")
    assert Decimal(stats["montantRestant"]) == Decimal("19999.50")
    assert Decimal(stats["montantEnRetard"]) == Decimal("14999.50")
    assert Decimal(stats["tauxRecouvrement"]) == Decimal("61.91")
    by_type = {t["typeCotisation"]: t for t in stats["parType"]}
    assert by_type["ANNUELLE"]["nombre"] == 1 and Decimal(by_type["ANNUELLE"]["montantDu"]) == Decimal("20000")
    assert by_type["MENSUELLE"]["nombre"] == 5 and Decimal(by_type["MENSUELLE"]["montantDu"]) == Decimal("32500")
    compact = (await client.get(f"{BASE}/stats", headers=treasurer.headers)).json()
    assert {k: compact[k] for k in compact if k != "calculeLe"} == {k: stats[k] for k in compact if k != "calculeLe"}
    feb = (await client.get(f"{BASE}/statistiques/periode", params={"annee": 2026, "mois": 2},
                            headers=treasurer.headers)).json()
    assert feb["nombreTotal"] == 2 and feb["parStatut"]["EN_RETARD"] == 2 and feb["mois"] == 2
    assert Decimal(feb["montantDu"]) == Decimal("17500") and Decimal(feb["tauxRecouvrement"]) == Decimal("14.29")
    year = (await client.get(f"{BASE}/statistiques/periode", params={"annee": 2026},
                             headers=treasurer.headers)).json()
    assert year["nombreTotal"] == 5 and Decimal(year["montantCollecte"]) == Decimal("12500.50")
    assert (await client.get(f"{BASE}/statistiques/periode", headers=treasurer.headers)).status_code == 400
    assert (await client.get(f"{BASE}/statistiques/periode", params={"annee": 2026, "mois": 13},
                             headers=treasurer.headers)).status_code == 400
    mine = (await client.get(f"{BASE}/stats", headers=a.headers)).json()
    assert mine["nombreTotal"] == 2 and Decimal(mine["montantDu"]) == Decimal("20000")
    empty = (await client.get(f"{BASE}/stats", headers=(await factory.actor(["USER"])).headers)).json()
    assert empty["nombreTotal"] == 0 and Decimal(empty["tauxRecouvrement"]) == Decimal("0")


async def test_overdue_job_marks_in_batches(client, factory, db):
    org, treasurer, a, _ = await treasury(factory)
    today = today_utc()
    late = [await cotisation_a_venir(factory, a.membre, org, echeance=today - timedelta(days=i + 1)) for i in range(3)]
    partial = await cotisation_a_venir(factory, a.membre, org, echeance=today - timedelta(days=1),
                               montant_paye=Decimal("10"), statut="PARTIELLEMENT_PAYEE")
    due_today = await cotisation_a_venir(factory, a.membre, org, echeance=today)
    paid = await cotisation_a_venir(factory, a.membre, org, echeance=today - timedelta(days=9),
                            montant_paye=Decimal("5000"), statut="PAYEE")
    cancelled = await cotisation_a_venir(factory, a.membre, org, echeance=today - timedelta(days=9), statut="ANNULEE")
    assert await marquer_retards_lot(db, today, limit=3) == 3
    assert await marquer_retards_lot(db, today, limit=3) == 1
    assert await marquer_retards_lot(db, today, limit=3) == 0
    for row in [*late, partial, due_today, paid, cancelled]:
        await db.refresh(row)
    assert {r.statut for r in [*late, partial]} == {"EN_RETARD"}
    assert (due_today.statut, paid.statut, cancelled.statut) == ("EN_ATTENTE", "PAYEE", "ANNULEE")
    # A later payment moves it on; the dues stays overdue until settled.
    pay = await client.put(f"{BASE}/{partial.id}/payer", headers=treasurer.headers, json={"montant": "4990"})
    assert pay.json()["statut"] == "PAYEE"


async def test_overdue_job_commits_and_audits(app, committed_factory, committed_db):
    org = await committed_factory.organisation()
    membre = await committed_factory.membre(org)
    today = today_utc()
    for i in range(5):
        await cotisation_a_venir(committed_factory, membre, org, echeance=today - timedelta(days=i + 1))
    async with app.state.sessionmaker() as session:
        assert await compter_retards(session, today) == 5
    batches: list[int] = []  # what the CLI's progress bar is fed
    assert await marquer_retards(app.state.sessionmaker, today, batch_size=2, avancement=batches.append) == 5
    assert batches == [2, 2, 1]
    assert await marquer_retards(app.state.sessionmaker, today, batch_size=2) == 0
    stored = (await committed_db.execute(select(Cotisation.statut).where(Cotisation.membre_id == membre.id)
                                         .execution_options(populate_existing=True))).scalars().all()
    assert stored == ["EN_RETARD"] * 5
    entries = (await committed_db.execute(select(AuditLog).where(AuditLog.type_action == "MARQUER_RETARDS"))).scalars()
    assert sorted(e.details["apres"]["nombre"] for e in entries) == [0, 5]


def test_cli_declares_the_job():
    from unionflow.cli import build_parser

    args = build_parser().parse_args(["jobs", "marquer-retards", "--date", "2026-05-01", "--batch-size", "100"])
    assert args.jobs_command == "marquer-retards" and args.date == "2026-05-01" and args.batch_size == 100


async def _cached_statistics(factory, monkeypatch, *, min_age_seconds: int):
    """Statistics cached 30 s, forgotten by writes once ``min_age_seconds`` old; an organisation with a treasurer,
    a member's 5,000 dues and a global ADMIN."""
    from unionflow.config import get_settings

    monkeypatch.setattr(get_settings(), "statistics_cache_seconds", 30)
    monkeypatch.setattr(get_settings(), "statistics_invalidation_min_age_seconds", min_age_seconds)
    org, treasurer, a, _b = await treasury(factory)
    admin = await factory.actor(["ADMIN"], with_membre=False)
    due = await cotisation_a_venir(factory, a.membre, org, montant="5000")
    return org, treasurer, a, admin, due


async def test_statistics_carry_calcule_le_and_a_payment_invalidates_the_cache(client, factory, monkeypatch):
    """Global callers read every bucket of the summary: cached 30 s. Organisation staff read their few buckets
    live, without the cache (docs/decisions.md, issue 12)."""
    org, treasurer, a, admin, due = await _cached_statistics(factory, monkeypatch, min_age_seconds=0)
    first = (await client.get(f"{BASE}/stats", headers=admin.headers)).json()
    assert Decimal(first["montantCollecte"]) == 0 and first["calculeLe"]
    again = (await client.get(f"{BASE}/stats", headers=admin.headers)).json()
    assert again == first, "served from the cache, with the time the figures were computed"
    live = (await client.get(f"{BASE}/stats", headers=treasurer.headers)).json()
    assert live["calculeLe"] > first["calculeLe"], "organisation staff: computed at each read"

    paid = await client.put(f"{BASE}/{due.id}/payer", headers={**treasurer.headers, "Idempotency-Key": "stats-1"},
                            json={"montant": "2000"})
    assert paid.status_code == 200, paid.text
    after = (await client.get(f"{BASE}/stats", headers=admin.headers)).json()
    assert Decimal(after["montantCollecte"]) == Decimal("2000") and after["calculeLe"] > first["calculeLe"]
    detail = (await client.get(f"{BASE}/statistiques", headers=admin.headers)).json()
    assert Decimal(detail["montantCollecte"]) == Decimal("2000") and detail["calculeLe"]

    # Creating a dues through the API invalidates too.
    created = await client.post(BASE, headers=treasurer.headers, json={
        "membreId": str(a.membre.id), "organisationId": str(org.id), "typeCotisation": "MENSUELLE",
        "montantDu": "1000", "dateEcheance": str(days(10)), "annee": 2026, "mois": 4})
    assert created.status_code == 201, created.text
    assert (await client.get(f"{BASE}/stats", headers=admin.headers)).json()["nombreTotal"] == 2


async def test_a_payment_keeps_figures_computed_seconds_ago(client, factory, monkeypatch):
    """Within ``statistics_invalidation_min_age_seconds`` a write leaves the cached figures (with their calculeLe)
    instead of making every dashboard read recompute; older ones are forgotten as before. Organisation staff,
    who read their buckets live, see the payment at once."""
    _org, treasurer, _a, admin, due = await _cached_statistics(factory, monkeypatch, min_age_seconds=3600)
    first = (await client.get(f"{BASE}/stats", headers=admin.headers)).json()
    paid = await client.put(f"{BASE}/{due.id}/payer", headers={**treasurer.headers, "Idempotency-Key": "stats-2"},
                            json={"montant": "2000"})
    assert paid.status_code == 200, paid.text
    assert (await client.get(f"{BASE}/stats", headers=admin.headers)).json() == first
    staff = (await client.get(f"{BASE}/stats", headers=treasurer.headers)).json()
    assert Decimal(staff["montantCollecte"]) == Decimal("2000")
