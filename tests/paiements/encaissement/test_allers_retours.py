"""Round-trip budget of the payment write path (issue 12): what one request sends to the database, counted.

The budget is for the steady state: the organisation has already received payments (its default accounts
and journals exist, reference data is cached in the worker). The principal lookup is excluded — the
"principal" work caches it — by ``tests/allers_retours.PRINCIPAL``; the count is printed (``pytest -s``) with
every statement, so a regression shows what was added.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from decimal import Decimal

from sqlalchemy import delete, func, select

from tests.allers_retours import allers_retours
from tests.factories.cotisations import cotisation_a_venir
from unionflow.config import get_settings
from unionflow.core import lot
from unionflow.models import (
    AuditLog,
    CleIdempotence,
    Cotisation,
    EcritureComptable,
    LigneEcriture,
    MembreOrganisation,
    Paiement,
    PaiementAllocation,
    ResultatCache,
)

# Round trips on PostgreSQL (issue 12). SQLite has no data-modifying CTEs: the writes that PostgreSQL receives
# as one statement are separate there, but a statement is a function call in the process, not a network round
# trip; its figure is a regression guard, not a goal.
BUDGET_PAIEMENT = {"postgresql": 12, "sqlite": 16}
BUDGET_APPROBATION = {"postgresql": 6, "sqlite": 9}


async def _payer(client, treasurer, dues, key: str):
    response = await client.put(f"/api/cotisations/{dues.id}/payer", json={"montant": str(dues.montant_du)},
                                headers={**treasurer.headers, "Idempotency-Key": key})
    assert response.status_code == 200, response.text
    return response.json()


async def test_payment_of_a_dues_stays_within_its_round_trip_budget(app, client, committed_factory, committed_db):
    org = await committed_factory.organisation()
    treasurer = await committed_factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    member = await committed_factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    warm = [await cotisation_a_venir(committed_factory, member.membre, org, montant="5000") for _ in range(2)]
    dues = await cotisation_a_venir(committed_factory, member.membre, org, montant="7500")
    # The first payment of an organisation opens its default accounts and journal (a change of reference
    # data); the second finds them and fills this worker's cache; the third is the steady state measured.
    for due in warm:
        await _payer(client, treasurer, due, f"warm-{uuid.uuid4()}")

    key = f"guichet-{uuid.uuid4()}"
    reused = lot._combined.cache_info().hits
    with allers_retours(app.state.engine) as sent:
        body = await _payer(client, treasurer, dues, key)
    print("\n" + sent.report())
    if sent.dialect == "postgresql":
        # The payment's combined statement is the kept one: its SQLAlchemy cache key is not computed again.
        assert lot._combined.cache_info().hits > reused

    assert len(sent.principal) <= 1
    assert sent.statements[0] == "BEGIN" and sent.statements[-1] == "COMMIT"
    assert not sent.starting("SAVEPOINT"), "a new payment needs no savepoint"
    assert sent.count <= BUDGET_PAIEMENT[sent.dialect], sent.report()
    assert sent.compiles == [], "compiled at every payment (no SQLAlchemy cache key)"

    # Same rows as before the budget: payment, allocation, dues, receipt, entry and lines, key, audit.
    await committed_db.commit()  # SQLite: end the read snapshot taken before the request
    assert body["statut"] == "PAYEE" and body["recu"]["numeroRecu"].startswith("REC-")
    paiement = (await committed_db.execute(select(Paiement).where(
        Paiement.id == uuid.UUID(body["recu"]["paiementId"])))).scalar_one()
    assert paiement.montant == Decimal("7500") and paiement.montant_non_affecte == 0
    assert await committed_db.scalar(select(func.sum(PaiementAllocation.montant)).where(
        PaiementAllocation.paiement_id == paiement.id)) == Decimal("7500")
    row = (await committed_db.execute(select(Cotisation.statut, Cotisation.montant_paye).where(
        Cotisation.id == dues.id))).one()
    assert row.statut == "PAYEE" and row.montant_paye == Decimal("7500")
    ecriture = (await committed_db.execute(select(EcritureComptable).where(
        EcritureComptable.paiement_id == paiement.id))).scalar_one()
    lignes = list((await committed_db.execute(select(LigneEcriture).where(
        LigneEcriture.ecriture_id == ecriture.id))).scalars())
    assert sum(lg.debit for lg in lignes) == sum(lg.credit for lg in lignes) == Decimal("7500")
    assert (await committed_db.execute(select(CleIdempotence.statut_reponse).where(
        CleIdempotence.cle == key))).scalar_one() == 200
    actions = set((await committed_db.execute(select(AuditLog.type_action).where(
        AuditLog.entite_id.in_([str(paiement.id), str(dues.id), str(ecriture.id)])))).scalars())
    assert actions == {"VALIDER_PAIEMENT", "PAYER", "CREER"}

    # The key still replays, and another body under it is still refused.
    with allers_retours(app.state.engine) as replayed:
        again = await client.put(f"/api/cotisations/{dues.id}/payer", json={"montant": str(dues.montant_du)},
                                 headers={**treasurer.headers, "Idempotency-Key": key})
    print(replayed.report())
    assert again.status_code == 200 and again.headers["Idempotent-Replayed"] == "true"
    assert again.json()["recu"] == body["recu"]
    other = await client.put(f"/api/cotisations/{dues.id}/payer", json={"montant": "1"},
                             headers={**treasurer.headers, "Idempotency-Key": key})
    assert other.status_code == 422


async def test_with_the_statistics_cache_on_a_payment_purges_it_in_its_kept_statement(
        app, client, committed_factory, committed_db, monkeypatch):
    # The tests run with the cache off (conftest); production has it on, and the purge rides in the payment's lot.
    monkeypatch.setattr(get_settings(), "statistics_cache_seconds", 30)
    org = await committed_factory.organisation()
    treasurer = await committed_factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    member = await committed_factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    dues = [await cotisation_a_venir(committed_factory, member.membre, org, montant="5000") for _ in range(4)]
    for due in dues[:2]:
        await _payer(client, treasurer, due, f"warm-{uuid.uuid4()}")
    for due in dues[2:]:
        now = datetime.now(UTC)
        committed_db.add_all([ResultatCache(cle=f"cotisations.stats:{uuid.uuid4()}", valeur={}, calcule_le=quand)
                              for quand in (now - timedelta(hours=1), now)])
        await committed_db.commit()
        reused = lot._combined.cache_info().hits
        with allers_retours(app.state.engine) as sent:
            await _payer(client, treasurer, due, f"guichet-{uuid.uuid4()}")
        assert sent.compiles == [], sent.compiles
        if sent.dialect == "postgresql":
            # The purge is a kept statement too: the payment's combined statement is the kept one.
            assert lot._combined.cache_info().hits > reused
        await committed_db.commit()  # SQLite: a new read snapshot
        ages = list((await committed_db.execute(select(ResultatCache.calcule_le).where(
            ResultatCache.cle.like("cotisations.%")))).scalars())
        # The hour-old figures are gone; those computed in the last seconds stay (core/cache.purges).
        assert len(ages) == 1 and ages[0].replace(tzinfo=UTC) > now - timedelta(seconds=5), ages
        await committed_db.execute(delete(ResultatCache))
        await committed_db.commit()


async def test_approving_an_adhesion_stays_within_its_round_trip_budget(app, client, committed_factory,
                                                                        committed_db):
    org = await committed_factory.organisation()
    org_admin = await committed_factory.actor(["USER"], organisation=org,
                                              org_roles=["MEMBRE", "ADMIN_ORGANISATION"])
    applicants = [await committed_factory.actor(["MEMBRE"]) for _ in range(2)]
    created = []
    for applicant in applicants:
        response = await client.post("/api/adhesions", headers=applicant.headers, json={
            "membreId": str(applicant.membre.id), "organisationId": str(org.id), "fraisAdhesion": "15000"})
        assert response.status_code == 201, response.text
        created.append(response.json()["id"])
    warm = await client.post(f"/api/adhesions/{created[0]}/approuver", headers=org_admin.headers)
    assert warm.status_code == 200, warm.text

    with allers_retours(app.state.engine) as sent:
        approved = await client.post(f"/api/adhesions/{created[1]}/approuver", headers=org_admin.headers)
    print("\n" + sent.report())
    assert approved.status_code == 200, approved.text
    assert approved.json()["statut"] == "APPROUVEE"
    assert not sent.starting("SAVEPOINT")
    assert sent.count <= BUDGET_APPROBATION[sent.dialect], sent.report()
    assert sent.compiles == [], "compiled at every approval (no SQLAlchemy cache key)"

    await committed_db.commit()  # SQLite: end the read snapshot taken before the request
    membership = (await committed_db.execute(select(MembreOrganisation).where(
        MembreOrganisation.membre_id == applicants[1].membre.id,
        MembreOrganisation.organisation_id == org.id))).scalar_one()
    assert membership.statut == "ACTIF" and "MEMBRE" in membership.roles
    actions = set((await committed_db.execute(select(AuditLog.type_action).where(
        AuditLog.entite_id.in_([created[1], str(membership.id)])))).scalars())
    assert {"APPROUVER", "ACTIVER_ADHESION"} <= actions
