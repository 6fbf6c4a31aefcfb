"""Each organisation keeps its own gap-free receipt series (issue 19, item 5), under real concurrency.

PostgreSQL, real commits: while one transaction holds organisation A's receipt counter (as a payment of A does
until it commits), payments of organisation B go through; the transaction rolls back, and A's payments that
were waiting take the numbers from 1, with no gap: a rolled-back payment gives its number back."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest
from sqlalchemy import select

from tests.factories.cotisations import cotisation_a_venir
from unionflow.core.numbering import next_values
from unionflow.models import Paiement
from unionflow.paiements.recus.numerotation import compteur_recus

pytestmark = pytest.mark.postgresql_only


async def _payer(client, treasurer, dues):
    return await client.put(f"/api/cotisations/{dues.id}/payer", headers=treasurer.headers,
                            json={"montant": str(dues.montant_du)})


async def test_two_organisations_pay_in_parallel_on_independent_gap_free_series(app, client, committed_factory,
                                                                                committed_db):
    year = datetime.now(UTC).year
    setups = []
    for code in ("ORGA", "ORGB"):
        org = await committed_factory.organisation(nom_court=code)
        treasurer = await committed_factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
        member = await committed_factory.actor(["MEMBRE"], organisation=org)
        dues = [await cotisation_a_venir(committed_factory, member.membre, org, montant="1000") for _ in range(4)]
        setups.append((org, treasurer, dues))
    (org_a, treasurer_a, dues_a), (org_b, treasurer_b, dues_b) = setups
    # One payment each first: the organisations get their code and default accounts (reference data).
    for _org, treasurer, dues in setups:
        assert (await _payer(client, treasurer, dues.pop())).status_code == 200

    # A transaction takes A's next receipt number and holds it, as a payment of A does until its commit.
    async with app.state.sessionmaker() as blocker:
        taken = await next_values(blocker, compteur_recus(org_a.id, year))
        assert taken == {compteur_recus(org_a.id, year): 2}
        waiting_a = [asyncio.create_task(_payer(client, treasurer_a, d)) for d in dues_a]
        # B's payments do not wait on A's counter.
        done_b = await asyncio.wait_for(asyncio.gather(*[_payer(client, treasurer_b, d) for d in dues_b]), 30)
        assert [r.status_code for r in done_b] == [200] * 3, [r.text for r in done_b]
        await asyncio.sleep(0.3)
        assert not any(t.done() for t in waiting_a), "A's payments wait for A's counter only"
        await blocker.rollback()  # the number 2 of A is given back
    done_a = await asyncio.wait_for(asyncio.gather(*waiting_a), 30)
    assert [r.status_code for r in done_a] == [200] * 3, [r.text for r in done_a]

    for org, code in ((org_a, "ORGA"), (org_b, "ORGB")):
        numbers = sorted((await committed_db.execute(select(Paiement.numero_recu).where(
            Paiement.organisation_id == org.id))).scalars())
        assert numbers == [f"REC-{code}-{year}-{n:06d}" for n in range(1, 5)], numbers
