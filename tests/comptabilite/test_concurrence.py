from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import func, select

from tests.factories.comptabilite import compte, ecriture, journal
from tests.factories.cotisations import cotisation
from unionflow.models import EcritureComptable
from unionflow.paiements.encaissement.workflow import Cible, EncaissementService


@pytest.mark.postgresql_only
async def test_concurrent_entries_get_distinct_gap_free_numbers(client, committed_factory):
    org = await committed_factory.organisation()
    tresorier = await committed_factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    h = tresorier.headers
    # An account outside the four-eyes control (saisies/): the entries are booked at once, concurrently.
    banque = await compte(client, h, org.id, "4111", "Membres, cotisations à recevoir")
    cotis = await compte(client, h, org.id, "7061", "Cotisations")
    bq = await journal(client, h, org.id)
    body = ecriture(bq["id"], [(banque["id"], "100", "0"), (cotis["id"], "0", "100")])
    responses = await asyncio.gather(*[client.post("/api/comptabilite/ecritures", headers=h, json=body)
                                       for _ in range(6)])
    assert [r.status_code for r in responses] == [200] * 6
    numbers = sorted(r.json()["numeroPiece"] for r in responses)
    assert numbers == [f"BQ-2026-{i:06d}" for i in range(1, 7)]


@pytest.mark.postgresql_only
async def test_concurrent_bookings_of_one_payment_give_one_entry(app, committed_db, committed_factory):
    org = await committed_factory.organisation()
    membre = await committed_factory.membre(org)
    cot = await cotisation(committed_db, membre, org, "5000")
    paiement = await EncaissementService(committed_db, None).preparer(
        membre_id=membre.id, organisation_id=org.id, methode="WAVE", cibles=[Cible(cotisation_id=cot.id)])
    await committed_db.commit()

    async def book() -> bool:
        # Confirming the payment is what books it: three concurrent confirmations, one entry.
        async with app.state.sessionmaker() as session:
            _, applied = await EncaissementService(session, None).confirmer(paiement.id)
            await session.commit()
            return applied

    applied = await asyncio.gather(book(), book(), book())
    assert sorted(applied) == [False, False, True]
    count = (await committed_db.execute(select(func.count()).select_from(EcritureComptable).where(
        EcritureComptable.paiement_id == paiement.id))).scalar_one()
    assert count == 1
