"""Queries behind the SYCEBNL statements: the organisation's mapping rows, the counterparts of its cash movements,
and the donations it received by means of payment.

Unscoped (``SystemRepository``): the services check first that the caller may see the organisation's books."""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal

from sqlalchemy import delete, func, select

from unionflow.comptabilite.etats.repository import ZERO
from unionflow.core.repository import SystemRepository
from unionflow.models import CompteComptable, CorrespondanceSycebnl, EcritureComptable, LigneEcriture, Paiement


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

    async def dons_par_methode(self, organisation_id: uuid.UUID, debut: date, fin: date) -> dict[str, Decimal]:
        """Validated donations (payments of nature DON) of the period, by means of payment."""
        start = datetime.combine(debut, time.min, UTC)
        end = datetime.combine(fin + timedelta(days=1), time.min, UTC)
        stmt = (select(Paiement.methode, func.sum(Paiement.montant))
                .where(Paiement.organisation_id == organisation_id, Paiement.nature == "DON",
                       Paiement.statut == "VALIDE", Paiement.date_paiement >= start, Paiement.date_paiement < end)
                .group_by(Paiement.methode).order_by(Paiement.methode))
        return {r[0]: _dec(r[1]) for r in (await self.session.execute(stmt)).all() if _dec(r[1]) != ZERO}
