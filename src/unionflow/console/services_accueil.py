"""The figures of the home page: each one the total of a list the API gives, through the same service and scope.

Each function answers what the API route would count for the caller in his active organisation; the home page
decides which of them a person sees (its role set), never how they are counted.
"""

from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal

from sqlalchemy.ext.asyncio import AsyncSession
from starlette.requests import Request

from unionflow.approbations import service as quatre_yeux
from unionflow.clotures.mensuelle.service import ClotureMensuelleService
from unionflow.console import services
from unionflow.core.auth import AuthContext
from unionflow.core.pagination import PageParams
from unionflow.core.permissions import Permission
from unionflow.demandes_aide.repository import DemandeFilters
from unionflow.demandes_aide.service import DemandeAideService
from unionflow.membres.repository import MembreFilters
from unionflow.membres.service import MembreService
from unionflow.models.demande_aide import StatutDemandeAide
from unionflow.models.paiement import MethodePaiement, StatutPaiement
from unionflow.paiements.rapprochement_wave.service import RapprochementWaveService
from unionflow.paiements.repository import PaiementFilters
from unionflow.paiements.service import PaiementService

UN = PageParams(0, 1)


async def a_approuver(session: AsyncSession, auth: AuthContext) -> int:
    """GET /api/approbations/a-approuver: totalElements."""
    return (await quatre_yeux.a_approuver(session, auth, UN)).total_elements


async def declarations(session: AsyncSession, auth: AuthContext) -> int:
    """Members' declarations waiting for the treasury: GET /api/paiements?statut=EN_ATTENTE minus the open Wave
    sessions among them (?methode=WAVE), which Wave confirms, not the treasurer (the list /declarations shows)."""
    service = PaiementService(session, auth)

    async def total(methode: str | None) -> int:
        filters = PaiementFilters(organisation_id=auth.active_organisation_id, statut=StatutPaiement.EN_ATTENTE,
                                  methode=methode)
        return (await service.lister(filters, UN)).total_elements

    return await total(None) - await total(MethodePaiement.WAVE)


async def versements_a_confirmer(session: AsyncSession, auth: AuthContext, request: Request) -> int:
    """GET /api/versements?statut=EN_COURS: prepared payouts a second person of the treasury confirms."""
    return (await services.versements_a_approuver(session, auth, request, 1)).total_elements


async def lignes_wave_inconnues(session: AsyncSession, auth: AuthContext) -> int:
    """Unknown lines of the Wave statements (``lignesParStatut.INCONNUE`` of GET /api/wave/releves/{id}, summed)."""
    return await RapprochementWaveService(session, auth).nombre_lignes_inconnues(auth.active_organisation_id)


def mois_a_cloturer(aujourdhui: date) -> tuple[int, int]:
    """The month a closing is due for: the last complete one."""
    last = aujourdhui.replace(day=1) - timedelta(days=1)
    return last.year, last.month


async def mois_clos(session: AsyncSession, auth: AuthContext, annee: int, mois: int) -> bool:
    """Whether GET /api/comptabilite/clotures-mensuelles?organisationId= lists that month."""
    assert auth.active_organisation_id is not None
    faites = await ClotureMensuelleService(session, auth).lister(auth.active_organisation_id)
    return any(c.annee == annee and c.mois == mois for c in faites)


async def aides_a_decider(session: AsyncSession, auth: AuthContext) -> int:
    """Submitted aid requests (GET /api/demandes-aide/search?statut=SOUMISE) the caller may decide: never his own."""
    rows, _ = await DemandeAideService(session, auth).lister(DemandeFilters(statut=StatutDemandeAide.SOUMISE.value),
                                                            PageParams(0, 100))
    return sum(1 for d in rows if auth.active_organisation_id in (None, d.organisation_id)
               and d.membre_id != auth.membre_id and auth.can(Permission.AIDE_DECIDER, d.organisation_id))


async def membres(session: AsyncSession, auth: AuthContext) -> int:
    """GET /api/membres?organisationId=<active>: totalElements."""
    filters = MembreFilters(organisation_id=auth.active_organisation_id)
    return (await MembreService(session, auth).lister(filters, UN)).total_elements


async def adhesions_en_attente(session: AsyncSession, auth: AuthContext) -> int:
    return (await services.adhesions_en_attente(session, auth)).total_elements


async def mes_cotisations(session: AsyncSession, auth: AuthContext) -> tuple[int, Decimal, str, int]:
    """GET /api/compte-adherent: (dues left to pay, what they and the approved joining fees leave owed, currency,
    declarations waiting for the treasury)."""
    compte = await services.mon_compte(session, auth)
    du = sum((c.reste_a_payer for c in compte.cotisations_a_payer), Decimal(0)) + compte.frais_adhesion_restants
    return len(compte.cotisations_a_payer), du, compte.devise, compte.paiements_en_attente
