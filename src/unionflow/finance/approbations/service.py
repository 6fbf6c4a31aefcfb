"""Approval requests of financial transactions.

EN_ATTENTE → APPROUVEE once the required number of distinct approvers (1, or 2 from the configured amount)
approved; → REJETEE at the first rejection; → ANNULEE when the requester withdraws it (or the payout it
covers is cancelled). Approvers: the PRESIDENT or ADMIN_ORGANISATION of the organisation, never the requester,
and never twice the same person on one request.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from decimal import Decimal

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.configuration.service import valeur
from unionflow.core import audit
from unionflow.core.auth import AuthContext
from unionflow.core.errors import Conflict, Forbidden, InvalidState, NotFound, RegleMetier
from unionflow.core.numbering import sequential_number
from unionflow.core.pagination import Page, PageParams
from unionflow.core.permissions import Permission
from unionflow.finance.approbations.repository import ApprobationFilters, ApprobationRepository
from unionflow.finance.approbations.schemas import (
    ApprobationResponse,
    CreateApprobationRequest,
    StatutApprobation,
    TypeObjetApprobation,
)
from unionflow.finance.service import MODULE, verifier_decideur
from unionflow.models import Approbation, DecisionApprobation
from unionflow.models.demande_aide import StatutDemandeAide
from unionflow.models.versement import StatutVersement
from unionflow.notifications import workflow as notices

ETAT = ["statut", "niveau_atteint", "niveaux_requis", "date_decision", "motif_annulation"]
SEUIL_VERSEMENT = "finance.approbation.seuil_versement"
SEUIL_DOUBLE = "finance.approbation.seuil_double"


async def seuil(session: AsyncSession, cle: str) -> Decimal:
    return Decimal(str(await valeur(session, cle)))


async def ouvrir(session: AsyncSession, auth: AuthContext, *, organisation_id: uuid.UUID,
                 type_objet: TypeObjetApprobation, objet_id: uuid.UUID | None, montant: Decimal, devise: str,
                 motif: str) -> Approbation:
    """Open a request; the number of approvers follows the configured two-approver threshold."""
    niveaux = 2 if montant >= await seuil(session, SEUIL_DOUBLE) else 1
    approbation = Approbation(
        numero=await sequential_number(session, "APP", datetime.now(UTC).year), organisation_id=organisation_id,
        type_objet=type_objet.value, objet_id=objet_id, montant=montant, devise=devise, motif=motif,
        statut=StatutApprobation.EN_ATTENTE.value, niveaux_requis=niveaux, niveau_atteint=0,
        demande_par=auth.actor_name, demande_par_sub=auth.personne, date_demande=datetime.now(UTC), decisions=[])
    session.add(approbation)
    await session.flush()
    await audit.record(session, auth, action="CREER", module=MODULE, entite_type="Approbation",
                       entite_id=approbation.id, organisation_id=organisation_id,
                       after=audit.snapshot(approbation, ["numero", "type_objet", "objet_id", "montant", "statut",
                                                          "niveaux_requis"]),
                       description=f"Demande d'approbation {approbation.numero} ({type_objet.value})")
    await notices.approbation_en_attente(
        session, organisation_id, Permission.FINANCE_DECIDER, f"Approbation {approbation.numero} à décider",
        f"{type_objet.value} de {montant} {devise} à approuver: {motif}", ("Approbation", approbation.id),
        auth.actor_name, sauf=auth.membre_id)
    return approbation


class ApprobationService:
    def __init__(self, session: AsyncSession, auth: AuthContext) -> None:
        self.session = session
        self.auth = auth
        self.repo = ApprobationRepository(session, auth)

    async def _get(self, approbation_id: uuid.UUID, *, for_update: bool = False) -> Approbation:
        approbation = await self.repo.get(approbation_id, for_update=for_update)
        if approbation is None:
            raise NotFound("Demande d'approbation introuvable")
        return approbation

    async def _objet(self, data: CreateApprobationRequest, organisation_id: uuid.UUID) -> Decimal:
        """Check the object the request is about and give the amount to approve."""
        if data.type_objet is TypeObjetApprobation.ANNULATION:
            raise RegleMetier("typeObjet: ANNULATION est ouverte par la demande d'annulation elle-même")
        if data.type_objet is TypeObjetApprobation.AUTRE:
            if data.montant is None:
                raise RegleMetier("montant: obligatoire")
            return data.montant
        if data.objet_id is None:
            raise RegleMetier(f"objetId: obligatoire pour {data.type_objet.value}")
        if data.type_objet is TypeObjetApprobation.VERSEMENT:
            versement = await self.repo.versement(data.objet_id)
            if versement is None or versement.organisation_id != organisation_id:
                raise NotFound("Versement introuvable dans cette organisation")
            if versement.statut != StatutVersement.EN_COURS or versement.payout_id is not None:
                raise InvalidState(f"Versement {versement.statut}: plus rien à approuver")
            if data.montant is not None and data.montant != versement.montant:
                raise RegleMetier(f"montant: celui du versement ({versement.montant})")
            return versement.montant
        demande = await self.repo.demande_aide(data.objet_id)
        if demande is None or demande.organisation_id != organisation_id:
            raise NotFound("Demande d'aide introuvable dans cette organisation")
        if demande.statut != StatutDemandeAide.APPROUVEE:
            raise InvalidState(f"Demande d'aide {demande.statut}: seule une aide accordée se décaisse")
        montant = data.montant if data.montant is not None else demande.montant_accorde
        assert montant is not None
        if demande.montant_accorde is not None and montant > demande.montant_accorde:
            raise RegleMetier(f"montant: au plus le montant accordé ({demande.montant_accorde})")
        return montant

    async def creer(self, data: CreateApprobationRequest) -> ApprobationResponse:
        organisation = await self.repo.organisation(data.organisation_id)
        if organisation is None:
            raise NotFound("Organisation introuvable")
        montant = await self._objet(data, organisation.id)
        if data.objet_id is not None:
            courantes = await self.repo.courantes(data.type_objet.value, data.objet_id, for_update=True)
            if any(a.statut in {StatutApprobation.EN_ATTENTE, StatutApprobation.APPROUVEE} for a in courantes):
                raise Conflict("Une demande d'approbation en attente ou approuvée existe déjà pour cet objet")
        approbation = await ouvrir(self.session, self.auth, organisation_id=organisation.id,
                                   type_objet=data.type_objet, objet_id=data.objet_id, montant=montant,
                                   devise=organisation.devise, motif=data.motif)
        return ApprobationResponse.model_validate(approbation)

    async def obtenir(self, approbation_id: uuid.UUID) -> ApprobationResponse:
        return ApprobationResponse.model_validate(await self._get(approbation_id))

    async def lister(self, filters: ApprobationFilters, params: PageParams) -> Page[ApprobationResponse]:
        rows, total, exact = await self.repo.search(filters, params)
        return Page[ApprobationResponse].build([ApprobationResponse.model_validate(r) for r in rows], params,
                                               total, exact)

    async def _decider(self, approbation_id: uuid.UUID, decision: StatutApprobation,
                       commentaire: str | None) -> ApprobationResponse:
        approbation = await self._get(approbation_id, for_update=True)
        role = verifier_decideur(self.auth, approbation.organisation_id, approbation.demande_par_sub)
        if approbation.statut != StatutApprobation.EN_ATTENTE:
            raise InvalidState(f"Demande d'approbation déjà {approbation.statut}")
        if any(d.approbateur_sub == self.auth.personne for d in approbation.decisions):
            raise Forbidden("Vous avez déjà approuvé un niveau: le niveau suivant revient à une autre personne")
        before = audit.snapshot(approbation, ETAT)
        now = datetime.now(UTC)
        niveau = approbation.niveau_atteint + 1
        approbation.decisions.append(DecisionApprobation(
            niveau=niveau, decision=decision.value, approbateur=self.auth.actor_name,
            approbateur_sub=self.auth.personne,
            role=role, commentaire=commentaire, date_decision=now))
        if decision is StatutApprobation.REJETEE:
            approbation.statut = decision.value
            approbation.date_decision = now
        else:
            approbation.niveau_atteint = niveau
            if niveau >= approbation.niveaux_requis:
                approbation.statut = StatutApprobation.APPROUVEE.value
                approbation.date_decision = now
        await self.session.flush()
        action = "REJETER" if decision is StatutApprobation.REJETEE else (
            "APPROUVER" if approbation.statut == StatutApprobation.APPROUVEE else f"APPROUVER_NIVEAU_{niveau}")
        await audit.record(self.session, self.auth, action=action, module=MODULE, entite_type="Approbation",
                           entite_id=approbation.id, organisation_id=approbation.organisation_id, before=before,
                           after={**audit.snapshot(approbation, ETAT), "niveau": niveau, "role": role},
                           severite="WARNING" if decision is StatutApprobation.REJETEE else "INFO",
                           description=commentaire)
        return ApprobationResponse.model_validate(approbation)

    async def approuver(self, approbation_id: uuid.UUID, commentaire: str | None) -> ApprobationResponse:
        return await self._decider(approbation_id, StatutApprobation.APPROUVEE, commentaire)

    async def rejeter(self, approbation_id: uuid.UUID, commentaire: str) -> ApprobationResponse:
        return await self._decider(approbation_id, StatutApprobation.REJETEE, commentaire)

    async def annuler(self, approbation_id: uuid.UUID, motif: str) -> ApprobationResponse:
        approbation = await self._get(approbation_id, for_update=True)
        if approbation.demande_par_sub != self.auth.personne and not self.auth.is_global:
            raise Forbidden("Seul le demandeur retire sa demande d'approbation")
        if approbation.statut != StatutApprobation.EN_ATTENTE:
            raise InvalidState(f"Demande d'approbation déjà {approbation.statut}")
        await annuler(self.session, self.auth, approbation, motif)
        return ApprobationResponse.model_validate(approbation)


async def annuler(session: AsyncSession, auth: AuthContext, approbation: Approbation, motif: str) -> None:
    before = audit.snapshot(approbation, ETAT)
    approbation.statut = StatutApprobation.ANNULEE.value
    approbation.motif_annulation = motif
    approbation.date_decision = datetime.now(UTC)
    await session.flush()
    await audit.record(session, auth, action="ANNULER", module=MODULE, entite_type="Approbation",
                       entite_id=approbation.id, organisation_id=approbation.organisation_id, before=before,
                       after=audit.snapshot(approbation, ETAT), description=motif)
