"""Aggregations behind the accounting statements: one grouped query per statement, on the ledger lines.

Callers have already checked that the organisation's entries are visible to them (the bureau, global roles)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Any

from sqlalchemy import Select, and_, case, func, literal, select

from unionflow.comptabilite.etats.soldes_repository import compartiments
from unionflow.core.repository import SystemRepository
from unionflow.models import CompteComptable, EcritureComptable, JournalComptable, LigneEcriture

ZERO = Decimal("0")
# Journal type of the year-end closing entries: left out of the income statement, or a closed year would show
# neither income nor expenses.
TYPE_JOURNAL_CLOTURE = "CLOTURE"


@dataclass(frozen=True)
class SoldeCompte:
    compte_id: uuid.UUID
    numero: str
    libelle: str
    classe: int
    debit_avant: Decimal
    credit_avant: Decimal
    debit_periode: Decimal
    credit_periode: Decimal


@dataclass(frozen=True)
class Mouvement:
    compte_id: uuid.UUID
    date_ecriture: date
    numero_piece: str
    code_journal: str
    libelle: str
    debit: Decimal
    credit: Decimal
    piece_reference: str | None = None
    paiement_id: uuid.UUID | None = None


def _dec(value: Any) -> Decimal:
    return Decimal(value or 0).quantize(Decimal("0.01"))


class EtatsRepository(SystemRepository[EcritureComptable]):
    """Figures of the financial statements of one organisation, which the service checked the caller may see."""

    model = EcritureComptable

    def _lines(self, organisation_id: uuid.UUID) -> Select[Any]:
        return self._lines_of([organisation_id])

    def _lines_of(self, organisation_ids: list[uuid.UUID]) -> Select[Any]:
        return (select().select_from(LigneEcriture)
                .join(EcritureComptable, EcritureComptable.id == LigneEcriture.ecriture_id)
                .join(CompteComptable, CompteComptable.id == LigneEcriture.compte_id)
                .join(JournalComptable, JournalComptable.id == EcritureComptable.journal_id)
                .where(EcritureComptable.organisation_id.in_(organisation_ids) if len(organisation_ids) > 1
                       else EcritureComptable.organisation_id == organisation_ids[0]))

    async def soldes(self, organisation_id: uuid.UUID, debut: date | None, fin: date, *,
                     sans_cloture: bool = False) -> list[SoldeCompte]:
        """Per account: debits and credits before ``debut`` and from ``debut`` to ``fin`` inclusive."""
        par_org = await self.soldes_organisations([organisation_id], debut, fin, sans_cloture=sans_cloture)
        return par_org.get(organisation_id, [])

    def _buckets_of(self, organisation_ids: list[uuid.UUID], debut: date | None, fin: date) -> tuple[Any, Select[Any]]:
        """The buckets of the lines up to ``fin`` (etats/soldes_repository.py), account and journal joined."""
        b = compartiments(organisation_ids, debut, fin)
        return b, (select().select_from(b)
                   .join(CompteComptable, CompteComptable.id == b.c.compte_id)
                   .join(JournalComptable, JournalComptable.id == b.c.journal_id))

    async def soldes_organisations(self, organisation_ids: list[uuid.UUID], debut: date | None, fin: date, *,
                                   sans_cloture: bool = False, classe: int | None = None
                                   ) -> dict[uuid.UUID, list[SoldeCompte]]:
        """``soldes`` of several organisations in one grouped query (a federation's consolidation: one statement
        for all its organisations instead of one per organisation), by organisation, accounts in number order.
        ``classe``: that class's accounts only (the consolidation's treasury). Read from the monthly summary
        (etats/soldes_repository.py), so the cost follows the number of accounts and months, not of lines."""
        if not organisation_ids:
            return {}
        b, base = self._buckets_of(organisation_ids, debut, fin)
        avant = b.c.jour < debut if debut else None

        def part(column: Any, before: bool) -> Any:
            if avant is None:
                return literal(0) if before else func.sum(column)
            return func.sum(case((avant if before else ~avant, column), else_=0))

        stmt = (base.add_columns(b.c.organisation_id, CompteComptable.id, CompteComptable.numero_compte,
                                 CompteComptable.libelle, CompteComptable.classe, part(b.c.debit, True),
                                 part(b.c.credit, True), part(b.c.debit, False), part(b.c.credit, False))
                .group_by(b.c.organisation_id, CompteComptable.id, CompteComptable.numero_compte,
                          CompteComptable.libelle, CompteComptable.classe)
                # An account shows when it has lines: pending deltas can net a bucket to nothing.
                .having(func.sum(b.c.nombre) > 0)
                .order_by(b.c.organisation_id, CompteComptable.numero_compte))
        if sans_cloture:
            stmt = stmt.where(JournalComptable.type_journal != TYPE_JOURNAL_CLOTURE)
        if classe is not None:
            stmt = stmt.where(CompteComptable.classe == classe)
        result: dict[uuid.UUID, list[SoldeCompte]] = {}
        for r in (await self.session.execute(stmt)).all():
            result.setdefault(r[0], []).append(
                SoldeCompte(r[1], r[2], r[3], r[4], _dec(r[5]), _dec(r[6]), _dec(r[7]), _dec(r[8])))
        return result

    async def soldes_consolides(self, organisation_ids: list[uuid.UUID], debut: date, fin: date
                                ) -> tuple[dict[uuid.UUID, list[SoldeCompte]], ...]:
        """The three ``soldes_organisations`` the consolidated statements need, in one pass over the buckets
        instead of three: the balance of the period, the same without the closing journal (income statement),
        and the cumulative balance at ``fin``. Each equals what ``soldes_organisations`` returns for it: an
        account whose lines are all closing entries is absent from the second, as its filter would leave it."""
        if not organisation_ids:
            return {}, {}, {}
        b, base = self._buckets_of(organisation_ids, debut, fin)
        avant = b.c.jour < debut
        hors = JournalComptable.type_journal != TYPE_JOURNAL_CLOTURE

        def somme(column: Any, *conditions: Any) -> Any:
            return func.sum(case((and_(*conditions), column), else_=0))

        stmt = (base.add_columns(b.c.organisation_id, CompteComptable.id, CompteComptable.numero_compte,
                                 CompteComptable.libelle, CompteComptable.classe,
                                 *(somme(col, when) for when in (avant, ~avant) for col in (b.c.debit, b.c.credit)),
                                 *(somme(col, when, hors) for when in (avant, ~avant)
                                   for col in (b.c.debit, b.c.credit)),
                                 somme(b.c.nombre, hors))
                .group_by(b.c.organisation_id, CompteComptable.id, CompteComptable.numero_compte,
                          CompteComptable.libelle, CompteComptable.classe)
                .having(func.sum(b.c.nombre) > 0)
                .order_by(b.c.organisation_id, CompteComptable.numero_compte))
        balances: dict[uuid.UUID, list[SoldeCompte]] = {}
        resultats: dict[uuid.UUID, list[SoldeCompte]] = {}
        cumuls: dict[uuid.UUID, list[SoldeCompte]] = {}
        for r in (await self.session.execute(stmt)).all():
            org, compte = r[0], (r[1], r[2], r[3], r[4])
            da, ca, dp, cp, hda, hca, hdp, hcp = (_dec(v) for v in r[5:13])
            balances.setdefault(org, []).append(SoldeCompte(*compte, da, ca, dp, cp))
            if r[13]:
                resultats.setdefault(org, []).append(SoldeCompte(*compte, hda, hca, hdp, hcp))
            cumuls.setdefault(org, []).append(SoldeCompte(*compte, _dec(0), _dec(0), da + dp, ca + cp))
        return balances, resultats, cumuls

    async def mouvements_produits_organisations(self, organisation_ids: list[uuid.UUID], numeros: set[str],
                                                debut: date, fin: date
                                                ) -> dict[uuid.UUID, dict[str, tuple[Decimal, Decimal]]]:
        """Per organisation, per account number of ``numeros``: (credits, debits) of the entries dated from ``debut``
        to ``fin`` inclusive, closing entries left out (the trial balance's columns of the period,
        etats/encaisse.py), in one grouped query for all the organisations, over the monthly buckets
        (etats/soldes_repository.py: a bucket from ``debut`` on is inside the period, whole or cut)."""
        if not organisation_ids or not numeros:
            return {}
        b, base = self._buckets_of(organisation_ids, debut, fin)
        stmt = (base.add_columns(b.c.organisation_id, CompteComptable.numero_compte,
                                 func.sum(b.c.credit), func.sum(b.c.debit))
                .where(CompteComptable.numero_compte.in_(numeros), b.c.jour >= debut,
                       JournalComptable.type_journal != TYPE_JOURNAL_CLOTURE)
                .group_by(b.c.organisation_id, CompteComptable.numero_compte))
        result: dict[uuid.UUID, dict[str, tuple[Decimal, Decimal]]] = {}
        for org, numero, credit, debit in (await self.session.execute(stmt)).all():
            result.setdefault(org, {})[numero] = (_dec(credit), _dec(debit))
        return result

    async def mouvements(self, organisation_id: uuid.UUID, debut: date, fin: date,
                         compte_id: uuid.UUID | None) -> list[Mouvement]:
        stmt = (self._lines(organisation_id)
                .add_columns(LigneEcriture.compte_id, EcritureComptable.date_ecriture, EcritureComptable.numero_piece,
                             JournalComptable.code, func.coalesce(LigneEcriture.libelle, EcritureComptable.libelle),
                             LigneEcriture.debit, LigneEcriture.credit, EcritureComptable.piece_reference,
                             EcritureComptable.paiement_id)
                .where(EcritureComptable.date_ecriture >= debut, EcritureComptable.date_ecriture <= fin)
                .order_by(CompteComptable.numero_compte, EcritureComptable.date_ecriture,
                          EcritureComptable.numero_piece, LigneEcriture.ordre))
        if compte_id is not None:
            stmt = stmt.where(LigneEcriture.compte_id == compte_id)
        return [Mouvement(r[0], r[1], r[2], r[3], r[4], _dec(r[5]), _dec(r[6]), r[7], r[8])
                for r in (await self.session.execute(stmt)).all()]

    async def ecritures(self, organisation_id: uuid.UUID, debut: date, fin: date,
                        journal_id: uuid.UUID | None) -> list[EcritureComptable]:
        stmt = (select(EcritureComptable)
                .where(EcritureComptable.organisation_id == organisation_id,
                       EcritureComptable.date_ecriture >= debut, EcritureComptable.date_ecriture <= fin)
                .order_by(EcritureComptable.date_ecriture, EcritureComptable.numero_piece, EcritureComptable.id))
        if journal_id is not None:
            stmt = stmt.where(EcritureComptable.journal_id == journal_id)
        return list((await self.session.execute(stmt)).scalars())

    async def a_des_ecritures(self, organisation_id: uuid.UUID, debut: date, fin: date) -> bool:
        stmt = select(EcritureComptable.id).where(EcritureComptable.organisation_id == organisation_id,
                                                  EcritureComptable.date_ecriture >= debut,
                                                  EcritureComptable.date_ecriture <= fin).limit(1)
        return (await self.session.execute(stmt)).scalar_one_or_none() is not None

    async def ecritures_desequilibrees(self, organisation_id: uuid.UUID, debut: date, fin: date) -> list[str]:
        """Numbers of the month's entries whose debits and credits differ (posting refuses them; this reads what
        the database holds, whatever wrote it)."""
        stmt = (select(EcritureComptable.numero_piece)
                .join(LigneEcriture, LigneEcriture.ecriture_id == EcritureComptable.id)
                .where(EcritureComptable.organisation_id == organisation_id,
                       EcritureComptable.date_ecriture >= debut, EcritureComptable.date_ecriture <= fin)
                .group_by(EcritureComptable.id, EcritureComptable.numero_piece)
                .having(func.sum(LigneEcriture.debit) != func.sum(LigneEcriture.credit))
                .order_by(EcritureComptable.numero_piece))
        return [str(n) for n in (await self.session.execute(stmt)).scalars()]
