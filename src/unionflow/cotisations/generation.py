"""Dues generation for every active member of an organisation, in chunks: inline for a normal organisation,
as a background task (``taches``) above ``tache_seuil_cotisations`` members, committing each chunk and its
progress. The unique generation key makes any re-run (or a task resumed after a crash) skip what exists.

Dues follow the membership: a member is called for a period his membership covers (started on or before
its last day, not ended before its first day), unless the request asks, with a reason, to call members whose
membership started later. A member who joined after the period's due date gets his membership's start as due
date: nobody is overdue on the day he joins."""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime
from decimal import Decimal

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.core.cache import invalidate
from unionflow.core.numbering import random_reference
from unionflow.cotisations.periodes import bornes
from unionflow.cotisations.repository import CotisationSystemRepository
from unionflow.cotisations.schemas import GenerationResponse, GenererCotisationsRequest
from unionflow.cotisations.service import codes_paiement, echeance_par_defaut
from unionflow.membres.repository import MembreRepository
from unionflow.models import Organisation
from unionflow.models.cotisation import StatutCotisation
from unionflow.paiements.avoirs.service import imputer_automatiquement
from unionflow.paiements.encaissement.workflow import COTISATIONS_STATS

CHUNK = 500  # rows per INSERT: well under both back ends' bound-parameter limits
ZERO = Decimal("0")

# (session, members done, members in all): called after each chunk, before its commit when committing.
Avancement = Callable[[AsyncSession, int, int], Awaitable[None]]


def generation_key(organisation_id: uuid.UUID, type_cotisation: str, annee: int, mois: int | None,
                   membre_id: uuid.UUID) -> str:
    return f"{organisation_id}:{type_cotisation}:{annee}:{mois or 0}:{membre_id}"


def periode(data: GenererCotisationsRequest) -> str:
    return f"{data.mois:02d}/{data.annee}" if data.mois else str(data.annee)


@dataclass(frozen=True, slots=True)
class Appeles:
    """Who a generation calls: (member id, membership start or None when called before it) in id order, and how
    many active members the period leaves out."""

    membres: list[tuple[uuid.UUID, date | None]]
    hors_adhesion: int


async def membres_actifs(session: AsyncSession, organisation_id: uuid.UUID,
                         data: GenererCotisationsRequest) -> Appeles:
    debut, fin = bornes(data.type_cotisation, data.annee, data.mois)
    adhesions = await MembreRepository(session, None).select_adhesions_actives(organisation_id)
    appeles: list[tuple[uuid.UUID, date | None]] = []
    for membre_id, entree, sortie in adhesions:
        if sortie is not None and sortie < debut:
            continue
        if entree <= fin:
            appeles.append((membre_id, entree))
        elif data.avant_adhesion:
            appeles.append((membre_id, None))
    return Appeles(appeles, len(adhesions) - len(appeles))


async def generer(session: AsyncSession, organisation: Organisation, data: GenererCotisationsRequest,
                  appeles: Appeles, avancement: Avancement | None = None,
                  commit_each_chunk: bool = False) -> GenerationResponse:
    type_cot = data.type_cotisation.value
    libelle = data.libelle or f"Cotisation {type_cot.lower()} {periode(data)}"
    echeance = data.date_echeance or await echeance_par_defaut(session, data.annee, data.mois)
    now = datetime.now(UTC)
    repo = CotisationSystemRepository(session)
    membres = appeles.membres
    created = 0
    for start in range(0, len(membres), CHUNK):
        rows = [{
            "id": uuid.uuid4(), "numero_reference": random_reference("COT", data.annee), "membre_id": membre_id,
            "organisation_id": organisation.id, "type_cotisation": type_cot, "libelle": libelle,
            "annee": data.annee, "mois": data.mois, "montant_du": data.montant, "montant_paye": ZERO,
            "devise": organisation.devise,
            "date_echeance": echeance if entree is None or entree <= echeance else entree,
            "statut": StatutCotisation.EN_ATTENTE.value,
            "cle_generation": generation_key(organisation.id, type_cot, data.annee, data.mois, membre_id),
            "created_at": now, "updated_at": now,
        } for membre_id, entree in membres[start:start + CHUNK]]
        for row, code in zip(rows, await codes_paiement(repo, len(rows)), strict=True):
            row["code_paiement"] = code
        created += await repo.inserer_generees(rows)
        if avancement is not None:
            await avancement(session, min(start + CHUNK, len(membres)), len(membres))
        if commit_each_chunk:
            await session.commit()
    skipped = len(membres) - created
    if created:
        await invalidate(session, COTISATIONS_STATS)
        # where the organisation says so, members' credit pays the dues already due.
        await imputer_automatiquement(session, organisation.id, now.date())
    message = (f"{created} cotisation(s) créée(s), {skipped} déjà existante(s) pour {periode(data)}" if created
               else f"Rien à créer: les cotisations {type_cot} {periode(data)} existent déjà pour les "
                    f"{len(membres)} membre(s) appelé(s)")
    if appeles.hors_adhesion:
        message += (f"; {appeles.hors_adhesion} membre(s) actif(s) non appelé(s): adhésion hors de la période")
    return GenerationResponse(membres_actifs=len(membres), creees=created, ignorees=skipped,
                              hors_adhesion=appeles.hors_adhesion, message=message)


def motif_avant_adhesion(data: GenererCotisationsRequest) -> str:
    """The audit description's trace of a generation before membership: who asked is the entry's actor."""
    return f" — avant adhésion, motif: {data.motif}" if data.avant_adhesion else ""


def audit_after(data: GenererCotisationsRequest, bilan: GenerationResponse) -> dict[str, object]:
    return {"typeCotisation": data.type_cotisation.value, "annee": data.annee, "mois": data.mois,
            "montant": data.montant, "dateEcheance": data.date_echeance, "creees": bilan.creees,
            "ignorees": bilan.ignorees, "horsAdhesion": bilan.hors_adhesion, "avantAdhesion": data.avant_adhesion,
            "motif": data.motif}
