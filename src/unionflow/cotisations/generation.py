"""Dues generation for every active member of an organisation, in chunks: inline for a normal organisation,
as a background task (``taches``) above ``tache_seuil_cotisations`` members, committing each chunk and its
progress. The unique generation key makes any re-run (or a task resumed after a crash) skip what exists."""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from decimal import Decimal

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.core.cache import invalidate
from unionflow.core.numbering import random_reference
from unionflow.cotisations.repository import CotisationSystemRepository
from unionflow.cotisations.schemas import GenerationResponse, GenererCotisationsRequest
from unionflow.cotisations.service import echeance_par_defaut
from unionflow.encaissement.workflow import COTISATIONS_STATS
from unionflow.membres.repository import MembreRepository
from unionflow.models import Organisation
from unionflow.models.cotisation import StatutCotisation

CHUNK = 500  # rows per INSERT: well under both back ends' bound-parameter limits
ZERO = Decimal("0")

# (session, members done, members in all): called after each chunk, before its commit when committing.
Avancement = Callable[[AsyncSession, int, int], Awaitable[None]]


def generation_key(organisation_id: uuid.UUID, type_cotisation: str, annee: int, mois: int | None,
                   membre_id: uuid.UUID) -> str:
    return f"{organisation_id}:{type_cotisation}:{annee}:{mois or 0}:{membre_id}"


def periode(data: GenererCotisationsRequest) -> str:
    return f"{data.mois:02d}/{data.annee}" if data.mois else str(data.annee)


async def membres_actifs(session: AsyncSession, organisation_id: uuid.UUID) -> list[uuid.UUID]:
    return await MembreRepository(session, None).select_ids_actifs(organisation_id)


async def generer(session: AsyncSession, organisation: Organisation, data: GenererCotisationsRequest,
                  membres: list[uuid.UUID], avancement: Avancement | None = None,
                  commit_each_chunk: bool = False) -> GenerationResponse:
    type_cot = data.type_cotisation.value
    libelle = data.libelle or f"Cotisation {type_cot.lower()} {periode(data)}"
    echeance = data.date_echeance or await echeance_par_defaut(session, data.annee, data.mois)
    now = datetime.now(UTC)
    repo = CotisationSystemRepository(session)
    created = 0
    for start in range(0, len(membres), CHUNK):
        rows = [{
            "id": uuid.uuid4(), "numero_reference": random_reference("COT", data.annee), "membre_id": membre_id,
            "organisation_id": organisation.id, "type_cotisation": type_cot, "libelle": libelle,
            "annee": data.annee, "mois": data.mois, "montant_du": data.montant, "montant_paye": ZERO,
            "devise": organisation.devise, "date_echeance": echeance,
            "statut": StatutCotisation.EN_ATTENTE.value,
            "cle_generation": generation_key(organisation.id, type_cot, data.annee, data.mois, membre_id),
            "created_at": now, "updated_at": now,
        } for membre_id in membres[start:start + CHUNK]]
        created += await repo.inserer_generees(rows)
        if avancement is not None:
            await avancement(session, min(start + CHUNK, len(membres)), len(membres))
        if commit_each_chunk:
            await session.commit()
    skipped = len(membres) - created
    if created:
        await invalidate(session, COTISATIONS_STATS)
    message = (f"{created} cotisation(s) créée(s), {skipped} déjà existante(s) pour {periode(data)}" if created
               else f"Rien à créer: les cotisations {type_cot} {periode(data)} existent déjà pour les "
                    f"{len(membres)} membre(s) actif(s)")
    return GenerationResponse(membres_actifs=len(membres), creees=created, ignorees=skipped, message=message)


def audit_after(data: GenererCotisationsRequest, bilan: GenerationResponse) -> dict[str, object]:
    return {"typeCotisation": data.type_cotisation.value, "annee": data.annee, "mois": data.mois,
            "montant": data.montant, "dateEcheance": data.date_echeance, "creees": bilan.creees,
            "ignorees": bilan.ignorees}
