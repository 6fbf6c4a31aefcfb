"""Aggregate queries behind the member account, the member dashboard and the organisation dashboard."""

from __future__ import annotations

import uuid
from datetime import date
from decimal import Decimal
from typing import Any

from sqlalchemy import func, select

from unionflow.core.repository import SystemRepository
from unionflow.cotisations.synthese_repository import chiffres_organisations, membres_en_retard
from unionflow.models import (
    Adhesion,
    Cotisation,
    Membre,
    MembreOrganisation,
    Organisation,
)
from unionflow.models.cotisation import STATUTS_DUS, StatutCotisation
from unionflow.models.membre import StatutAppartenance

ZERO = Decimal("0")


def dec(value: Any) -> Decimal:
    return Decimal(str(value or 0)).quantize(Decimal("0.01"))


class CompteRepository(SystemRepository[Cotisation]):
    """The member's account and the organisation's dashboard: unscoped figures, read after the service checked
    whose account or which organisation the caller may see. Reads other areas' tables for its aggregates (a
    one-door exception listed in docs/architecture.md, "Where money lives"); the payments' and the credit's
    figures come from paiements (paiements/rapport_repository.py)."""

    model = Cotisation

    async def appels(self, membre_id: uuid.UUID, debut: date, fin: date,
                     organisation_id: uuid.UUID | None) -> list[Cotisation]:
        """The member's dues falling due in [debut, fin), cancelled ones left out (they were never owed)."""
        stmt = select(Cotisation).where(Cotisation.membre_id == membre_id, Cotisation.date_echeance >= debut,
                                        Cotisation.date_echeance < fin,
                                        Cotisation.statut != StatutCotisation.ANNULEE)
        if organisation_id is not None:
            stmt = stmt.where(Cotisation.organisation_id == organisation_id)
        return list((await self.session.execute(stmt.order_by(Cotisation.date_echeance, Cotisation.id))).scalars())

    async def membre(self, membre_id: uuid.UUID) -> Membre | None:
        return await self.session.get(Membre, membre_id)

    async def organisation(self, organisation_id: uuid.UUID) -> Organisation | None:
        return await self.session.get(Organisation, organisation_id)

    async def memberships(self, membre_id: uuid.UUID) -> list[tuple[MembreOrganisation, Organisation]]:
        rows = await self.session.execute(
            select(MembreOrganisation, Organisation)
            .join(Organisation, Organisation.id == MembreOrganisation.organisation_id)
            .where(MembreOrganisation.membre_id == membre_id).order_by(Organisation.nom))
        return [(m, o) for m, o in rows.all()]

    async def open_dues(self, membre_id: uuid.UUID, organisation_id: uuid.UUID | None = None,
                        limit: int = 50, from_date: date | None = None) -> list[Cotisation]:
        stmt = select(Cotisation).where(Cotisation.membre_id == membre_id, Cotisation.statut.in_(STATUTS_DUS))
        if organisation_id:
            stmt = stmt.where(Cotisation.organisation_id == organisation_id)
        if from_date:
            stmt = stmt.where(Cotisation.date_echeance >= from_date)
        stmt = stmt.order_by(Cotisation.date_echeance, Cotisation.id).limit(limit)
        return list((await self.session.execute(stmt)).scalars())

    async def adhesions(self, membre_id: uuid.UUID, organisation_id: uuid.UUID | None = None) -> list[Adhesion]:
        stmt = select(Adhesion).where(Adhesion.membre_id == membre_id)
        if organisation_id:
            stmt = stmt.where(Adhesion.organisation_id == organisation_id)
        return list((await self.session.execute(stmt.order_by(Adhesion.date_demande.desc(), Adhesion.id))).scalars())

    # ---- organisation ---------------------------------------------------------------------------------------

    async def active_members(self, organisation_id: uuid.UUID) -> int:
        return (await self.active_members_par_organisation([organisation_id])).get(organisation_id, 0)

    async def active_members_par_organisation(self, organisation_ids: list[uuid.UUID]) -> dict[uuid.UUID, int]:
        """Active memberships per organisation, in one grouped query (a federation's consolidation)."""
        stmt = (select(MembreOrganisation.organisation_id, func.count())
                .where(MembreOrganisation.organisation_id.in_(organisation_ids),
                       MembreOrganisation.statut == StatutAppartenance.ACTIF)
                .group_by(MembreOrganisation.organisation_id))
        return {org: int(n) for org, n in (await self.session.execute(stmt)).all()}

    async def active_members_in(self, organisation_ids: list[uuid.UUID]) -> int:
        """Active memberships of several organisations (a federation's network)."""
        if not organisation_ids:
            return 0
        return int((await self.session.execute(select(func.count()).where(
            MembreOrganisation.organisation_id.in_(organisation_ids),
            MembreOrganisation.statut == StatutAppartenance.ACTIF))).scalar_one())

    async def organisation_dues(self, organisation_id: uuid.UUID, year: int, today: date) -> dict[str, Any]:
        return (await self.organisations_dues([organisation_id], year, today))[organisation_id]

    async def organisations_dues(self, organisation_ids: list[uuid.UUID], year: int, today: date
                                 ) -> dict[uuid.UUID, dict[str, Any]]:
        """The dues figures of several organisations in two grouped queries on the dues' summaries, not on the dues
        (the federation's consolidation, docs/performance.md « Scale scenarios »); an organisation without dues
        gets zeros."""
        # Both from the dues' summaries (cotisations owns them): the sums from the buckets, the distinct members
        # from the per-member earliest open dates.
        sommes = await chiffres_organisations(self.session, organisation_ids, year, today)
        en_retard = await membres_en_retard(self.session, organisation_ids, today)
        found = {org: (org, *row, en_retard.get(org, 0)) for org, row in sommes.items()}
        zero = (None, 0, 0, 0, 0, 0)
        return {org: {"du_echu": dec(row[1]), "paye_echu": dec(row[2]), "nombre_en_retard": int(row[3]),
                      "montant_en_retard": dec(row[4]), "membres_en_retard": int(row[5])}
                for org in organisation_ids for row in [found.get(org, zero)]}
