"""The per-member summary of open dues (migration 0046): each member's earliest open due date per organisation, from
which a federation counts its members in arrears. Every write path is drawn by the property test of
test_synthese.py (it compares the summary with the dues after each sequence); here, what a sequence cannot show:
two writers of one member at once, in both orders, on PostgreSQL (SQLite has one writer at a time), and the count
as of a date."""

from __future__ import annotations

import asyncio
import uuid
from datetime import timedelta

import pytest
from sqlalchemy import insert, select, update

from tests.factories.cotisations import cotisation_a_venir, days
from unionflow.compte.repository import CompteRepository
from unionflow.cotisations.synthese_repository import membres_en_retard
from unionflow.models import Cotisation, CotisationMembreSynthese


def _new_due(membre_id, organisation_id, echeance) -> dict:
    return {"id": uuid.uuid4(), "numero_reference": f"COT-T-{uuid.uuid4().hex[:10].upper()}",
            "membre_id": membre_id, "organisation_id": organisation_id, "type_cotisation": "SOLIDARITE",
            "annee": echeance.year, "montant_du": 1000, "date_echeance": echeance, "statut": "EN_ATTENTE"}


async def _earliest(app, organisation_id, membre_id):
    async with app.state.engine.connect() as conn:
        m = CotisationMembreSynthese
        return (await conn.execute(select(m.premiere_echeance_due).where(
            m.organisation_id == organisation_id, m.membre_id == membre_id))).scalar_one()


async def _blocked(task: asyncio.Task) -> bool:
    await asyncio.sleep(0.3)
    return not task.done()


@pytest.mark.parametrize("first", ["pays_the_old_due", "adds_a_new_due"])
async def test_two_writers_of_one_member_leave_his_earliest_open_date(app, committed_db, committed_factory, first):
    """One transaction pays the member's only open due while another adds him a new one. Whichever takes the
    member's row first, the other waits for it, and the date left is the new due's: the recompute after the
    wait reads the dues the first committed."""
    if committed_db.get_bind().dialect.name != "postgresql":
        pytest.skip("SQLite serialises writers: no two transactions write at once")
    org = await committed_factory.organisation()
    member = await committed_factory.actor(["MEMBRE"], organisation=org)
    old = await cotisation_a_venir(committed_factory, member.membre, org, "2000", days(-20))
    new = _new_due(member.membre.id, org.id, days(-5))
    pay = update(Cotisation).where(Cotisation.id == old.id).values(statut="PAYEE", montant_paye=2000)
    add = insert(Cotisation).values(**new)
    async with app.state.engine.connect() as one, app.state.engine.connect() as two:
        await one.begin()
        await two.begin()
        ordered = [(one, pay), (two, add)] if first == "pays_the_old_due" else [(two, add), (one, pay)]
        (first_conn, first_stmt), (second_conn, second_stmt) = ordered
        await first_conn.execute(first_stmt)
        waiting = asyncio.create_task(second_conn.execute(second_stmt))
        assert await _blocked(waiting), "the second writer of the member's row should wait for the first"
        await first_conn.commit()
        await waiting
        await second_conn.commit()
    assert await _earliest(app, org.id, member.membre.id) == new["date_echeance"]


async def test_members_in_arrears_are_counted_as_of_the_date_asked(factory, db):
    org = await factory.organisation()
    late, later, paid = [await factory.actor(["MEMBRE"], organisation=org) for _ in range(3)]
    await cotisation_a_venir(factory, late.membre, org, "1000", days(-30))
    await cotisation_a_venir(factory, late.membre, org, "1000", days(-10))
    await cotisation_a_venir(factory, later.membre, org, "1000", days(-10), statut="PARTIELLEMENT_PAYEE",
                             montant_paye=500)
    await cotisation_a_venir(factory, paid.membre, org, "1000", days(-40), statut="PAYEE", montant_paye=1000)
    await cotisation_a_venir(factory, paid.membre, org, "1000", days(5))
    counts = [(await membres_en_retard(db, [org.id], days(-30) + timedelta(days=d))).get(org.id, 0)
              for d in (0, 1, 21, 36)]
    assert counts == [0, 1, 2, 3]
    await db.execute(update(Cotisation).where(Cotisation.membre_id == late.membre.id).values(statut="ANNULEE"))
    assert (await CompteRepository(db).organisation_dues(org.id, days(0).year, days(0)))["membres_en_retard"] == 1
