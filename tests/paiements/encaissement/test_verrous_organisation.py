"""What a transaction holds on its organisation's row must not stop the organisation's payments (PostgreSQL, real
commits; SQLite has no row locks).

A payment's rows name its organisation: each insert takes ``FOR KEY SHARE`` on the organisation row, which a
``FOR UPDATE`` held elsewhere blocks until commit. A bench run (2026-12-03) found two such holders: the first
receipt of an organisation writing its series code (an UPDATE of a unique column takes ``FOR UPDATE``), which
was taken before the receipt counters and once closed a deadlock with a payment holding them (a 500); and the
payout's lock on its organisation, which queued every payment of the organisation behind the payout.
docs/decisions.md « Verrous de ligne et clés étrangères »."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest
from sqlalchemy import select, text

from tests.factories.cotisations import cotisation_a_venir
from unionflow.core.numbering import next_values
from unionflow.models import Organisation
from unionflow.organisations.repository import SerieOrganisationRepository
from unionflow.paiements.recus.numerotation import compteur_recus

pytestmark = pytest.mark.postgresql_only


async def _org_et_dues(factory, code: str, nombre: int = 1):
    org = await factory.organisation(nom_court=code)
    treasurer = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    member = await factory.actor(["MEMBRE"], organisation=org)
    dues = [await cotisation_a_venir(factory, member.membre, org, montant="1000") for _ in range(nombre)]
    return org, treasurer, dues


async def _payer(client, treasurer, dues):
    return await asyncio.wait_for(client.put(f"/api/cotisations/{dues.id}/payer", headers=treasurer.headers,
                                             json={"montant": "1000"}), 20)


async def _reference_possible(app, organisation_id) -> bool:
    """Whether another transaction may reference the organisation right now (what a payment's insert needs)."""
    async with app.state.sessionmaker() as other:
        try:
            await other.execute(text("SET LOCAL lock_timeout = '200ms'"))
            await other.execute(select(Organisation.id).where(Organisation.id == organisation_id)
                                .with_for_update(read=True, key_share=True))
            return True
        except Exception as exc:  # the lock timeout is the answer being asked
            assert "lock timeout" in str(exc), exc
            return False
        finally:
            await other.rollback()


async def _attend_les_compteurs(app) -> None:
    """Until a backend waits on a row lock inside the counters' statement (the payment queued on them)."""
    async with app.state.sessionmaker() as probe:
        for _ in range(300):  # 15 s
            waiting = await probe.scalar(text(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                "AND wait_event_type = 'Lock' AND query LIKE '%compteur%'"))
            if waiting:
                return
            # pg_stat_activity is read once per transaction: a new one for the next look.
            await probe.rollback()
            await asyncio.sleep(0.05)
    raise AssertionError("no payment reached the counters")


async def test_a_first_receipt_takes_its_code_after_the_counters(app, client, committed_factory, committed_db):
    """The organisation has no code yet. A transaction holds its receipt counter (as a payment does until it
    commits); its first payment queues on that counter without having locked the organisation row, so the
    organisation stays free to reference. Then it gets its number and its code."""
    org, treasurer, (dues,) = await _org_et_dues(committed_factory, "VERROUA")
    year = datetime.now(UTC).year
    async with app.state.sessionmaker() as holder:
        await next_values(holder, compteur_recus(org.id, year))
        payment = asyncio.create_task(_payer(client, treasurer, dues))
        await _attend_les_compteurs(app)
        assert await _reference_possible(app, org.id)
        await holder.rollback()
    response = await payment
    assert response.status_code == 200, response.text
    assert response.json()["recu"]["numeroRecu"] == f"REC-VERROUA-{year}-000001"


async def test_a_row_locked_for_a_change_lets_the_organisation_s_payments_through(app, client, committed_factory,
                                                                                   committed_db):
    org, treasurer, (premiere, seconde) = await _org_et_dues(committed_factory, "VERROUB", 2)
    # A first payment: the organisation gets its series code and its default accounts (reference data).
    assert (await _payer(client, treasurer, premiere)).status_code == 200
    async with app.state.sessionmaker() as payout:
        # The lock a payout takes on its organisation (OrganisationRepository.lock_organisation: the base ``get``).
        assert await SerieOrganisationRepository(payout).get_for_update(org.id) is not None
        assert await _reference_possible(app, org.id)
        # And a real payment of that organisation completes while the payout's transaction is open.
        response = await _payer(client, treasurer, seconde)
        assert response.status_code == 200, response.text
        await payout.rollback()
