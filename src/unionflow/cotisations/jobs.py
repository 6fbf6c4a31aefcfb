"""Scheduled jobs of the dues area. Run from cron or a systemd timer: ``unionflow jobs marquer-retards``
(docs/adhesions-cotisations.md). Responses already derive EN_RETARD at read time; the job stores it so that
exports, reports and other consumers reading the table directly see the same status."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from unionflow.core import audit
from unionflow.core.jobs import Avancer, Compteurs, Contexte, EchecTache, Job
from unionflow.cotisations import generation
from unionflow.cotisations.repository import CotisationSystemRepository
from unionflow.cotisations.schemas import GenererCotisationsRequest
from unionflow.cotisations.service import MODULE as MODULE_COTISATIONS
from unionflow.cotisations.synthese_repository import compacter_synthese
from unionflow.models import Tache
from unionflow.organisations.repository import OrganisationRepository
from unionflow.paiements.avoirs.service import imputer_automatiquement

BATCH = 5_000


async def marquer_retards_lot(session: AsyncSession, today: date, limit: int = BATCH) -> int:
    """Mark up to ``limit`` overdue dues EN_RETARD; returns how many were marked. Rows locked by a payment in
    progress are skipped on PostgreSQL and picked up by the next batch or run."""
    return await CotisationSystemRepository(session).marquer_retards(today, limit)


async def compter_retards(session: AsyncSession, today: date) -> int:
    """How many dues the job would mark now (the CLI's progress bar total)."""
    return await CotisationSystemRepository(session).compter_retards(today)


async def marquer_retards(sessionmaker: async_sessionmaker[AsyncSession], today: date | None = None,
                          batch_size: int = BATCH, avancement: Callable[[int], object] | None = None) -> int:
    """Mark every overdue dues, committing each batch so that millions of rows never sit in one transaction;
    ``avancement`` receives each batch's count."""
    day = today or datetime.now(UTC).date()
    total = 0
    while True:
        async with sessionmaker() as session:
            marked = await marquer_retards_lot(session, day, batch_size)
            if marked:
                total += marked
                await session.commit()
                if avancement is not None:
                    avancement(marked)
        if marked < batch_size:
            break
    async with sessionmaker() as session:
        await audit.record(session, None, action="MARQUER_RETARDS", module="COTISATIONS", entite_type="Cotisation",
                           description=f"{total} cotisation(s) passée(s) EN_RETARD (échéance avant le {day})",
                           after={"nombre": total, "date": day})
        await session.commit()
    return total


async def generation_cotisations_tache(ctx: Contexte, tache: Tache, avancer: Avancer) -> tuple[dict[str, Any], None]:
    data = GenererCotisationsRequest.model_validate(tache.parametres)
    async with ctx.sessionmaker() as session:
        organisation = await OrganisationRepository(session, None).get(data.organisation_id)
        if organisation is None:
            raise EchecTache("Organisation introuvable (supprimée depuis la demande)")
        appeles = await generation.membres_actifs(session, organisation.id, data)
        bilan = await generation.generer(session, organisation, data, appeles, avancer, commit_each_chunk=True)
        await audit.record(session, None, action="GENERER", module=MODULE_COTISATIONS, entite_type="Organisation",
                           entite_id=organisation.id, organisation_id=organisation.id,
                           description=f"{bilan.message} (tâche {tache.id}){generation.motif_avant_adhesion(data)}",
                           after={**generation.audit_after(data, bilan), "tache": tache.id})
        await session.commit()
    return bilan.model_dump(mode="json", by_alias=True), None


async def imputer_avoirs(sessionmaker: async_sessionmaker[AsyncSession], today: date | None = None) -> int:
    """members' credit pays their dues fallen due, in the organisations whose setting
    ``cotisations.avoir.imputation_automatique`` is on (oldest dues first)."""
    async with sessionmaker() as session:
        count = await imputer_automatiquement(session, None, today or datetime.now(UTC).date())
        await session.commit()
    return count


async def _marquer_retards(ctx: Contexte) -> Compteurs:
    return {"avoirs_imputes": await imputer_avoirs(ctx.sessionmaker),
            "marquees": await marquer_retards(ctx.sessionmaker)}


async def _compacter_synthese(ctx: Contexte) -> Compteurs:
    return await compacter_synthese(ctx.sessionmaker)


MARQUER_RETARDS = Job("marquer-retards", "Cotisations échues passées EN_RETARD",
                      lambda s: s.job_marquer_retards_secondes, lambda s: s.job_marquer_retards_decalage_secondes,
                      _marquer_retards)
COMPACTER_SYNTHESE = Job("compacter-synthese", "Report des écarts des cotisations dans la synthèse des statistiques",
                         lambda s: s.job_compacter_synthese_secondes, lambda s: 0, _compacter_synthese)
