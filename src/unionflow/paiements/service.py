"""Payments: reading (scoped), manual entry by the treasurer, closing a pending one (undoing validated money:
paiements/annulations/service.py)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from decimal import Decimal

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.config import Settings
from unionflow.core.auth import AuthContext
from unionflow.core.errors import Conflict, NotFound, RegleMetier
from unionflow.core.pagination import Page, PageParams
from unionflow.core.permissions import Permission
from unionflow.core.visibility import staff_sees
from unionflow.models import Paiement
from unionflow.models.paiement import StatutPaiement, TypeMouvementAvoir
from unionflow.organisations.repository import OrganisationRepository
from unionflow.paiements.avoirs.repository import MouvementAvoirRepository
from unionflow.paiements.checkout_service import WaveCheckoutService
from unionflow.paiements.encaissement.workflow import Cible, EncaissementService
from unionflow.paiements.repository import PaiementFilters, PaiementRepository
from unionflow.paiements.schemas import AllocationResponse, CreatePaiementRequest, PaiementResponse
from unionflow.tresoreries.service import tresorerie_d_entree
from unionflow.wave.repository import WaveCheckoutRepository


class PaiementService:
    def __init__(self, session: AsyncSession, auth: AuthContext, settings: Settings | None = None) -> None:
        self.session = session
        self.auth = auth
        self.settings = settings
        self.repo = PaiementRepository(session, auth)
        self.checkouts = WaveCheckoutRepository(session)

    def _wave(self) -> WaveCheckoutService:
        assert self.settings is not None
        return WaveCheckoutService(self.session, self.auth, self.settings)

    async def responses(self, paiements: list[Paiement]) -> list[PaiementResponse]:
        ids = [p.id for p in paiements]
        allocations = await self.repo.allocations(ids)
        checkouts = await self.checkouts.by_paiements(ids)
        avoirs = await MouvementAvoirRepository(self.session).du_paiement(ids)
        result = []
        for p in paiements:
            checkout = checkouts.get(p.id)
            result.append(PaiementResponse(
                id=p.id, numero_recu=p.numero_recu, membre_id=p.membre_id, organisation_id=p.organisation_id,
                montant=p.montant, montant_non_affecte=p.montant_non_affecte, devise=p.devise, methode=p.methode,
                statut=p.statut, reference_externe=p.reference_externe, date_paiement=p.date_paiement,
                enregistre_par=p.enregistre_par, recu_par=p.recu_par, reference_declaration=p.reference_declaration,
                commentaire=p.commentaire, created_at=p.created_at, nature=p.nature, evenement_id=p.evenement_id,
                tresorerie_id=p.tresorerie_id, methode_declaree=p.methode_declaree,
                updated_at=p.updated_at,
                allocations=[AllocationResponse(cotisation_id=a[0], adhesion_id=a[1], montant=a[2],
                                                numero_reference=a[3], libelle=a[4])
                             for a in allocations.get(p.id, [])],
                avoir_cree=sum((m.montant for m in avoirs[p.id] if m.type_mouvement == TypeMouvementAvoir.CREATION),
                               Decimal("0")),
                avoir_utilise=Decimal("0") - sum((m.montant for m in avoirs[p.id]
                                    if m.type_mouvement == TypeMouvementAvoir.IMPUTATION), Decimal("0")),
                wave_checkout_id=checkout.checkout_id if checkout else None,
                wave_launch_url=checkout.launch_url if checkout and p.statut == StatutPaiement.EN_ATTENTE else None,
                wave_expires_at=checkout.when_expires if checkout else None,
            ))
        return result

    async def response(self, paiement: Paiement) -> PaiementResponse:
        return (await self.responses([paiement]))[0]

    async def _get(self, paiement_id: uuid.UUID) -> Paiement:
        paiement = await self.repo.get(paiement_id)
        if paiement is None:
            raise NotFound("Paiement introuvable")
        return paiement

    async def obtenir(self, paiement_id: uuid.UUID) -> PaiementResponse:
        return await self.response(await self._get(paiement_id))

    async def obtenir_par_numero(self, numero: str) -> PaiementResponse:
        paiement = await self.repo.get_by_numero(numero)
        if paiement is None:
            raise NotFound("Paiement introuvable")
        return await self.response(paiement)

    async def lister(self, filters: PaiementFilters, params: PageParams) -> Page[PaiementResponse]:
        rows, total, exact = await self.repo.search(filters, params)
        return Page[PaiementResponse].build(await self.responses(rows), params, total, exact)

    async def lister_miens(self, filters: PaiementFilters, params: PageParams) -> Page[PaiementResponse]:
        if self.auth.membre_id is None:
            return Page[PaiementResponse].build([], params, 0)
        rows, total, exact = await self.repo.search(filters, params, membre_id=self.auth.membre_id)
        return Page[PaiementResponse].build(await self.responses(rows), params, total, exact)

    async def enregistrer(self, data: CreatePaiementRequest) -> PaiementResponse:
        """Manual payment entered by a treasurer or organisation administrator of the organisation."""
        if not staff_sees(self.auth, data.organisation_id) or not await OrganisationRepository(
                self.session, self.auth).exists(data.organisation_id):
            raise NotFound("Organisation introuvable")
        self.auth.require(Permission.PAIEMENT_ENREGISTRER, data.organisation_id,
                          "Seule la trésorerie de l'organisation enregistre un paiement")
        if await self.repo.membre(data.membre_id) is None:
            raise NotFound("Membre introuvable")
        if data.date_paiement is not None and data.date_paiement > datetime.now(UTC):
            raise RegleMetier("datePaiement ne peut pas être dans le futur")
        if data.tresorerie_id is not None:
            await tresorerie_d_entree(self.session, data.organisation_id, data.tresorerie_id, data.methode)
        await self._liberer_sessions_wave(data)
        paiement = await EncaissementService(self.session, self.auth).enregistrer(
            membre_id=data.membre_id, organisation_id=data.organisation_id, montant=data.montant,
            methode=data.methode, devise=data.devise, reference_externe=data.reference_externe,
            date_paiement=data.date_paiement, commentaire=data.commentaire, tresorerie_id=data.tresorerie_id,
            cibles=[Cible(cotisation_id=c.cotisation_id, adhesion_id=c.adhesion_id, montant=c.montant)
                    for c in data.cibles], avance=data.avance)
        return await self.response(paiement)

    async def _liberer_sessions_wave(self, data: CreatePaiementRequest) -> None:
        """A dues with an open Wave session is not paid at the counter before that session is expired at Wave
        (never both paid)."""
        cotisations = [c.cotisation_id for c in data.cibles if c.cotisation_id]
        adhesions = [c.adhesion_id for c in data.cibles if c.adhesion_id]
        if not cotisations and not adhesions:
            return
        if self.settings is None:
            if await self.repo.pending_wave_overlapping(data.membre_id, cotisations, adhesions):
                raise Conflict("Un paiement Wave est en cours pour ces cibles: expirez-le avant d'encaisser")
            return
        await self._wave().liberer_pour_guichet(data.membre_id, cotisations, adhesions)

    async def annuler_en_attente(self, paiement: Paiement) -> PaiementResponse:
        """A pending payment (declaration or Wave session) is not money yet: closing it is one step, the Wave
        session expired first. Validated money is undone by two people (paiements/annulations/service.py)."""
        await self._wave().expirer_session(paiement)
        return await self.response(await EncaissementService(self.session, self.auth).clore(paiement.id,
                                                                                           StatutPaiement.ANNULE))

    async def expirer_wave(self, paiement_id: uuid.UUID) -> PaiementResponse:
        return await self.response(await self._wave().expirer(paiement_id))

    async def synchroniser_wave(self, paiement_id: uuid.UUID) -> PaiementResponse:
        """Re-read the session from Wave and apply it: the fallback when a webhook never arrived."""
        return await self.response(await self._wave().synchroniser(paiement_id))
