"""The registries: every scheduled job and every background-task executor of the application, and the ports.

Each area declares its own in its ``jobs.py``; this module, an entry point beside app.py and cli.py, only
collects them. The scheduler (scheduler/) and the task runner (tasks/) receive them as arguments, so no low
package imports the areas whose work it runs (docs/architecture.md, "Layers"). Likewise each port an area
declares for a read of an area above it (its ``ports.py``, core/ports.py) is plugged here, on import, into the
area that answers it: the money reads of comptabilite, lcbft and finance, answered by paiements."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy.ext.asyncio import AsyncEngine

from unionflow.adhesions import traitements as traitements_adhesions
from unionflow.audit import traitements as traitements_audit
from unionflow.auth import traitements as traitements_auth
from unionflow.backups import jobs as backups
from unionflow.comptabilite import ports as ports_comptabilite
from unionflow.comptabilite.produits.service import MiseEnPlaceComptable
from unionflow.comptabilite.soldes_repository import COMPACTER_SOLDES
from unionflow.config import Settings
from unionflow.core.jobs import Executeur, Job
from unionflow.core.traitements import DeclarationTraitement
from unionflow.cotisations import jobs as cotisations
from unionflow.cotisations import traitements as traitements_cotisations
from unionflow.demandes_aide import traitements as traitements_demandes_aide
from unionflow.documents import traitements as traitements_documents
from unionflow.donnees_membre import jobs as donnees_membre
from unionflow.donnees_personnelles import ports as ports_donnees_personnelles
from unionflow.donnees_personnelles import traitements as traitements_donnees_personnelles
from unionflow.dons import traitements as traitements_dons
from unionflow.dons.benevolat_repository import BenevolatRepository
from unionflow.evenements import traitements as traitements_evenements
from unionflow.export import jobs as export
from unionflow.feedback import traitements as traitements_feedback
from unionflow.finance.approbations import ports as ports_finance
from unionflow.imports import jobs as imports
from unionflow.lcbft import ports as ports_lcbft
from unionflow.membres import traitements as traitements_membres
from unionflow.messagerie import traitements as traitements_messagerie
from unionflow.models.planificateur import TypeTache
from unionflow.monitoring import jobs as monitoring
from unionflow.notifications import jobs as notifications
from unionflow.notifications import traitements as traitements_notifications
from unionflow.organisations import ports as ports_organisations
from unionflow.paiements import traitements as traitements_paiements
from unionflow.paiements.ports_repository import (
    CumulsRepository,
    DonsRepository,
    PiecesRepository,
    VersementApprouveRepository,
)
from unionflow.scheduler import jobs as scheduler
from unionflow.scheduler import moteur
from unionflow.sms import traitements as traitements_sms
from unionflow.suggestions import traitements as traitements_suggestions
from unionflow.tickets import traitements as traitements_tickets
from unionflow.ussd import traitements as traitements_ussd
from unionflow.wave import traitements as traitements_wave
from unionflow.webhooks import jobs as webhooks

JOBS: tuple[Job, ...] = (
    cotisations.MARQUER_RETARDS,
    notifications.ENVOYER_NOTIFICATIONS,
    webhooks.LIVRER_WEBHOOKS,
    monitoring.SURVEILLER,
    backups.SAUVEGARDER,
    scheduler.NETTOYER,
    donnees_membre.RETENTION_DONNEES,
    cotisations.COMPACTER_SYNTHESE,
    COMPACTER_SOLDES,
)

EXECUTEURS: dict[TypeTache, Executeur] = {
    TypeTache.GENERATION_COTISATIONS: cotisations.generation_cotisations_tache,
    TypeTache.SAUVEGARDE: backups.sauvegarde_tache,
    TypeTache.EXPORT: export.export_tache,
    TypeTache.IMPORT_MEMBRES: imports.import_membres_tache,
}

# The register of processings (Loi 2008-12): every area's declarations, in the order of the areas' names.
TRAITEMENTS: tuple[DeclarationTraitement, ...] = (
    *traitements_adhesions.TRAITEMENTS,
    *traitements_audit.TRAITEMENTS,
    *traitements_auth.TRAITEMENTS,
    *traitements_cotisations.TRAITEMENTS,
    *traitements_demandes_aide.TRAITEMENTS,
    *traitements_documents.TRAITEMENTS,
    *traitements_dons.TRAITEMENTS,
    *traitements_donnees_personnelles.TRAITEMENTS,
    *traitements_evenements.TRAITEMENTS,
    *traitements_feedback.TRAITEMENTS,
    *traitements_membres.TRAITEMENTS,
    *traitements_messagerie.TRAITEMENTS,
    *traitements_notifications.TRAITEMENTS,
    *traitements_paiements.TRAITEMENTS,
    *traitements_sms.TRAITEMENTS,
    *traitements_suggestions.TRAITEMENTS,
    *traitements_tickets.TRAITEMENTS,
    *traitements_ussd.TRAITEMENTS,
    *traitements_wave.TRAITEMENTS,
)
ports_donnees_personnelles.TRAITEMENTS.brancher(TRAITEMENTS)

# Only paiements queries the money tables (docs/architecture.md, "Money is queried by paiements/ alone").
ports_comptabilite.PIECES.brancher(PiecesRepository)
ports_comptabilite.DONS.brancher(DonsRepository)
ports_comptabilite.BENEVOLAT.brancher(BenevolatRepository)
ports_lcbft.CUMULS.brancher(CumulsRepository)
ports_finance.VERSEMENTS.brancher(VersementApprouveRepository)
# A new organisation's books start in the SYCEBNL numbering (docs/decisions.md).
ports_organisations.MISE_EN_PLACE.brancher(MiseEnPlaceComptable)


class Planificateur(moteur.MoteurPlanificateur):
    """The scheduler with the application's jobs (or the given ones) and every task executor: what
    ``unionflow worker`` and the in-process scheduler run."""

    def __init__(self, engine: AsyncEngine, settings: Settings, jobs: Sequence[Job] = JOBS,
                 hote: str | None = None) -> None:
        super().__init__(engine, settings, jobs, EXECUTEURS, hote)
