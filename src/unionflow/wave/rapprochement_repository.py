"""Queries of the Wave reconciliation: statements, their lines and reconciliations (scoped for reading), and what
matching reads on the system's behalf (our Wave sessions and journaled payouts) once the permission was asked."""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime, time, timedelta

from sqlalchemy import func, or_, select

from unionflow.core.pagination import PageParams
from unionflow.core.repository import ScopedRepository, SystemRepository
from unionflow.models import LigneReleveWave, RapprochementWave, ReleveWave, TransactionWave, WaveCheckout
from unionflow.models.wave import StatutLigneReleveWave

# Our side of the statement: what the journal of Wave operations says moved money (paiements/checkout_service.py
# journals PAIEMENT_RECU when a session's payment is credited, wave/service.envoyer_payout VERSER with Wave's status).
RECU, VERSE, VERSE_OK = "PAIEMENT_RECU", "VERSER", "succeeded"


class ReleveWaveRepository(ScopedRepository[ReleveWave]):
    """Statements: organisation records, seen by global roles and the organisation's staff (default scope)."""

    model = ReleveWave

    async def releves(self, params: PageParams,
                      organisation_id: uuid.UUID | None) -> tuple[list[ReleveWave], int, bool]:
        stmt = self.select()
        if organisation_id:
            stmt = stmt.where(ReleveWave.organisation_id == organisation_id)
        return await self.paginate(stmt.order_by(ReleveWave.created_at.desc(), ReleveWave.id), params)

    async def lignes(self, params: PageParams, releve_id: uuid.UUID,
                     statut: str | None) -> tuple[list[LigneReleveWave], int, bool]:
        """Lines of a statement the caller already loaded through ``get`` (so, visible)."""
        stmt = select(LigneReleveWave).where(LigneReleveWave.releve_id == releve_id)
        if statut:
            stmt = stmt.where(LigneReleveWave.statut == statut)
        return await self.paginate(stmt.order_by(LigneReleveWave.horodatage, LigneReleveWave.id), params)

    async def nombre_lignes(self, organisation_id: uuid.UUID | None, statut: str) -> int:
        """Lines of ``statut`` over every statement the caller sees (of ``organisation_id`` when given)."""
        releves = self.select().with_only_columns(ReleveWave.id)
        if organisation_id:
            releves = releves.where(ReleveWave.organisation_id == organisation_id)
        return int((await self.session.execute(
            select(func.count()).select_from(LigneReleveWave).where(
                LigneReleveWave.releve_id.in_(releves), LigneReleveWave.statut == statut))).scalar_one())

    async def dernier_rapprochement(self, releve_id: uuid.UUID) -> RapprochementWave | None:
        return (await self.session.execute(
            select(RapprochementWave).where(RapprochementWave.releve_id == releve_id)
            .order_by(RapprochementWave.created_at.desc(), RapprochementWave.id).limit(1))).scalar_one_or_none()


def _debut(jour: date) -> datetime:
    return datetime.combine(jour, time.min, tzinfo=UTC)


class ReleveWaveSystemRepository(SystemRepository[ReleveWave]):
    """Importing and matching, after the service asked the permission for the statement's organisation."""

    model = ReleveWave

    async def par_empreinte(self, organisation_id: uuid.UUID, empreinte: str) -> ReleveWave | None:
        return (await self.session.execute(self.select().where(
            ReleveWave.organisation_id == organisation_id, ReleveWave.empreinte == empreinte))).scalar_one_or_none()

    async def lignes_connues(self, organisation_id: uuid.UUID,
                             cles: list[tuple[str, bool]]) -> set[tuple[str, bool]]:
        """Which (transaction id, reversal) of ``cles`` an earlier statement of the organisation already holds."""
        known: set[tuple[str, bool]] = set()
        ids = sorted({transaction_id for transaction_id, _ in cles})
        for start in range(0, len(ids), 500):
            rows = await self.session.execute(
                select(LigneReleveWave.transaction_id, LigneReleveWave.est_annulation).where(
                    LigneReleveWave.organisation_id == organisation_id,
                    LigneReleveWave.transaction_id.in_(ids[start:start + 500])))
            known.update((r.transaction_id, r.est_annulation) for r in rows)
        return known

    async def lignes_a_rapprocher(self, releve_id: uuid.UUID) -> list[LigneReleveWave]:
        """Lines not yet matched, locked: two reconciliations of one statement apply one after the other."""
        return list((await self.session.execute(
            select(LigneReleveWave).where(LigneReleveWave.releve_id == releve_id,
                                          LigneReleveWave.statut != StatutLigneReleveWave.RAPPROCHEE)
            .order_by(LigneReleveWave.horodatage, LigneReleveWave.id).with_for_update())).scalars())

    async def ligne(self, releve_id: uuid.UUID, ligne_id: uuid.UUID) -> LigneReleveWave | None:
        """One line of a statement (the statement was read through the scoped repository first), locked."""
        stmt = select(LigneReleveWave).where(LigneReleveWave.id == ligne_id, LigneReleveWave.releve_id == releve_id)
        return (await self.session.execute(stmt.with_for_update())).scalar_one_or_none()

    async def count_par_statut(self, releve_id: uuid.UUID) -> dict[str, int]:
        rows = await self.session.execute(select(LigneReleveWave.statut).where(LigneReleveWave.releve_id == releve_id))
        counts: dict[str, int] = {}
        for statut in rows.scalars():
            counts[statut] = counts.get(statut, 0) + 1
        return counts

    async def checkouts(self, *, sessions: set[str], transactions: set[str],
                        paiements: set[uuid.UUID]) -> list[WaveCheckout]:
        """Our Wave sessions named by a statement's session ids, transaction ids or client references."""
        conditions = []
        if sessions:
            conditions.append(WaveCheckout.checkout_id.in_(sessions))
        if transactions:
            conditions.append(WaveCheckout.transaction_id.in_(transactions))
        if paiements:
            conditions.append(WaveCheckout.paiement_id.in_(paiements))
        if not conditions:
            return []
        return list((await self.session.execute(select(WaveCheckout).where(or_(*conditions)))).scalars())

    async def payouts(self, versements: set[uuid.UUID]) -> list[TransactionWave]:
        """Payouts Wave accepted (journal VERSER, succeeded) whose client reference a statement names."""
        if not versements:
            return []
        return list((await self.session.execute(select(TransactionWave).where(
            TransactionWave.type_transaction == VERSE, TransactionWave.statut == VERSE_OK,
            TransactionWave.versement_id.in_(versements)))).scalars())

    async def operations(self, organisation_id: uuid.UUID, debut: date, fin: date) -> list[TransactionWave]:
        """Our Wave money of the period: payments credited and payouts Wave accepted, from the journal."""
        rows = await self.session.execute(select(TransactionWave).where(
            TransactionWave.organisation_id == organisation_id,
            TransactionWave.created_at >= _debut(debut), TransactionWave.created_at < _debut(fin + timedelta(days=1)),
            ((TransactionWave.type_transaction == RECU)
             | ((TransactionWave.type_transaction == VERSE) & (TransactionWave.statut == VERSE_OK))))
            .order_by(TransactionWave.created_at, TransactionWave.id))
        return list(rows.scalars())

    async def rapprochees(self, organisation_id: uuid.UUID) -> tuple[set[uuid.UUID], set[uuid.UUID]]:
        """Payments and payouts some statement line of the organisation names (matched, or matched with another
        amount: that one is listed as such, not also as absent)."""
        rows = await self.session.execute(
            select(LigneReleveWave.paiement_id, LigneReleveWave.versement_id).where(
                LigneReleveWave.organisation_id == organisation_id,
                LigneReleveWave.statut.in_([StatutLigneReleveWave.RAPPROCHEE,
                                            StatutLigneReleveWave.MONTANT_DIFFERENT])))
        paiements: set[uuid.UUID] = set()
        versements: set[uuid.UUID] = set()
        for row in rows:
            if row.paiement_id:
                paiements.add(row.paiement_id)
            if row.versement_id:
                versements.add(row.versement_id)
        return paiements, versements
