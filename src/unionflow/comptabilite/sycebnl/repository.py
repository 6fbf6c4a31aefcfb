"""Queries behind the SYCEBNL statements: the organisation's mapping rows and the counterparts of its cash movements
(the donations by means of payment are read from paiements through a port, comptabilite/ports.py).

Unscoped (``SystemRepository``): the services check first that the caller may see the organisation's books."""

from __future__ import annotations

import uuid
from datetime import date
from decimal import Decimal

from sqlalchemy import delete, func, select

from unionflow.core.repository import SystemRepository
from unionflow.models import CompteComptable, CorrespondanceSycebnl, EcritureComptable, LigneEcriture


def _dec(value: object) -> Decimal:
    return Decimal(str(value or 0)).quantize(Decimal("0.01"))


class CorrespondanceRepository(SystemRepository[CorrespondanceSycebnl]):
    model = CorrespondanceSycebnl

    async def lignes(self, organisation_id: uuid.UUID) -> dict[str, str]:
        rows = await self.session.execute(
            select(CorrespondanceSycebnl.prefixe, CorrespondanceSycebnl.rubrique)
            .where(CorrespondanceSycebnl.organisation_id == organisation_id)
            .order_by(CorrespondanceSycebnl.prefixe))
        return {prefixe: rubrique for prefixe, rubrique in rows.all()}

    async def remplacer(self, organisation_id: uuid.UUID, lignes: dict[str, str]) -> None:
        await self.session.execute(delete(CorrespondanceSycebnl)
                                   .where(CorrespondanceSycebnl.organisation_id == organisation_id))
        for prefixe, rubrique in lignes.items():
            self.session.add(CorrespondanceSycebnl(organisation_id=organisation_id, prefixe=prefixe,
                                                   rubrique=rubrique))
        await self.session.flush()


class FluxRepository(SystemRepository[EcritureComptable]):
    model = EcritureComptable

    async def contreparties_tresorerie(self, organisation_id: uuid.UUID, debut: date, fin: date
                                       ) -> dict[str, tuple[str, Decimal]]:
        """Per account outside class 5: Σ(credit − debit) of its lines in the entries of the period that move a
        class-5 account. Entries are balanced, so these sums add up to the change in cash; a transfer between two
        class-5 accounts has no counterpart and changes nothing."""
        tresorerie = (select(LigneEcriture.ecriture_id)
                      .join(CompteComptable, CompteComptable.id == LigneEcriture.compte_id)
                      .where(CompteComptable.organisation_id == organisation_id, CompteComptable.classe == 5))
        stmt = (select(CompteComptable.numero_compte, CompteComptable.libelle,
                       func.sum(LigneEcriture.credit - LigneEcriture.debit))
                .select_from(LigneEcriture)
                .join(EcritureComptable, EcritureComptable.id == LigneEcriture.ecriture_id)
                .join(CompteComptable, CompteComptable.id == LigneEcriture.compte_id)
                .where(EcritureComptable.organisation_id == organisation_id, CompteComptable.classe != 5,
                       EcritureComptable.date_ecriture >= debut, EcritureComptable.date_ecriture <= fin,
                       EcritureComptable.id.in_(tresorerie))
                .group_by(CompteComptable.numero_compte, CompteComptable.libelle)
                .order_by(CompteComptable.numero_compte))
        return {r[0]: (r[1], _dec(r[2])) for r in (await self.session.execute(stmt)).all()}
