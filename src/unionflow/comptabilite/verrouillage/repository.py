"""Lock dates and closed years of the books (reopening requests are four-eyes requests: approbations/).

Unscoped (``SystemRepository``): posting (``comptabilite.ecritures.service``), ``date_comptable`` and the closings
(clotures/: lock, year-end, reopening) read them after the caller's organisation was checked (scoped repository +
permission) or on the system's behalf."""

from __future__ import annotations

import uuid
from datetime import UTC

from sqlalchemy import distinct, select

from unionflow.core.pdf_etats import Arrete
from unionflow.core.repository import SystemRepository
from unionflow.models import EcritureComptable, ExerciceComptable, VerrouComptable


class ClotureRepository(SystemRepository[VerrouComptable]):
    """Lock dates and closed years. Callers have checked the organisation is visible to them."""

    model = VerrouComptable

    async def verrou(self, organisation_id: uuid.UUID, *, for_update: bool = False) -> VerrouComptable | None:
        stmt = select(VerrouComptable).where(VerrouComptable.organisation_id == organisation_id)
        if for_update:
            stmt = stmt.with_for_update()
        return (await self.session.execute(stmt)).scalar_one_or_none()

    async def exercices(self, organisation_id: uuid.UUID) -> list[ExerciceComptable]:
        stmt = select(ExerciceComptable).where(ExerciceComptable.organisation_id == organisation_id)
        return list((await self.session.execute(stmt.order_by(ExerciceComptable.annee))).scalars())

    async def exercice(self, organisation_id: uuid.UUID, annee: int) -> ExerciceComptable | None:
        stmt = select(ExerciceComptable).where(ExerciceComptable.organisation_id == organisation_id,
                                               ExerciceComptable.annee == annee)
        return (await self.session.execute(stmt)).scalar_one_or_none()

    async def arrete(self, organisation_id: uuid.UUID, annee: int) -> Arrete:
        """The date d'arrêté of the year's statements: the day its closing was done (UTC), none while open."""
        stmt = select(ExerciceComptable.date_cloture).where(ExerciceComptable.organisation_id == organisation_id,
                                                            ExerciceComptable.annee == annee)
        cloture = (await self.session.execute(stmt)).scalar_one_or_none()
        if cloture is None:
            return Arrete(annee, None)
        return Arrete(annee, (cloture if cloture.tzinfo else cloture.replace(tzinfo=UTC)).astimezone(UTC).date())

    async def derniere_annee_close(self, organisation_id: uuid.UUID) -> int | None:
        years = [e.annee for e in await self.exercices(organisation_id)]
        return max(years) if years else None

    async def annees_avec_ecritures(self, organisation_id: uuid.UUID) -> list[int]:
        stmt = select(distinct(EcritureComptable.annee)).where(EcritureComptable.organisation_id == organisation_id)
        return [int(a) for a in (await self.session.execute(stmt)).scalars()]
