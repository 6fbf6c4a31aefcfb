"""Approval requests of financial transactions: the FINANCE kind of four-eyes requests (approbations/).

EN_ATTENTE → APPROUVEE once the required number of distinct approvers (1, or 2 from the configured amount)
approved; → REJETEE at the first rejection; → ANNULEE (the mechanism's RETIREE) when the requester withdraws it
(or the payout it covers is cancelled). Approvers: the PRESIDENT or ADMIN_ORGANISATION of the organisation, never
the requester, and never twice the same person on one request. An approval carries nothing out by itself: the
payout checks it before it is sent (versement_service.py), an undo before it is carried out.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from decimal import Decimal

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.approbations import service as quatre_yeux
from unionflow.approbations.politiques import Politique, enregistrer
from unionflow.approbations.repository import ApprobationFilters, DemandeApprobationRepository
from unionflow.configuration.service import valeur
from unionflow.core import audit
from unionflow.core.auth import AuthContext
from unionflow.core.errors import Conflict, InvalidState, NotFound, RegleMetier
from unionflow.core.montants import montant_texte
from unionflow.core.numbering import sequential_number
from unionflow.core.pagination import Page, PageParams
from unionflow.core.permissions import Permission
from unionflow.finance.approbations.ports import VERSEMENTS
from unionflow.finance.approbations.repository import ApprobationRepository
from unionflow.finance.approbations.schemas import (
    ApprobationResponse,
    CreateApprobationRequest,
    DecisionResponse,
    StatutApprobation,
    TypeObjetApprobation,
)
from unionflow.finance.service import DECIDEURS, MODULE
from unionflow.models.approbation import DemandeApprobation, GenreDemande, StatutDemande, TypeDecision
from unionflow.models.demande_aide import StatutDemandeAide
from unionflow.models.versement import StatutVersement
from unionflow.notifications import workflow as notices

GENRE = GenreDemande.FINANCE.value
SEUIL_VERSEMENT = "finance.approbation.seuil_versement"
SEUIL_DOUBLE = "finance.approbation.seuil_double"
ENTITE = "Approbation"


async def seuil(session: AsyncSession, cle: str) -> Decimal:
    return Decimal(str(await valeur(session, cle)))


async def _niveaux(session: AsyncSession, montant: Decimal | None) -> int:
    return 2 if montant is not None and montant >= await seuil(session, SEUIL_DOUBLE) else 1


POLITIQUE = enregistrer(Politique(
    genre=GENRE, nom="Demande d'approbation", demander=Permission.VERSEMENT_INITIER,
    decider=Permission.FINANCE_DECIDER, roles_decideurs=DECIDEURS,
    refus_decideur="Seuls le PRESIDENT et l'ADMIN_ORGANISATION de l'organisation décident", niveaux=_niveaux,
    chemin="/api/finance/approbations/{id}",
    retiree=StatutApprobation.ANNULEE.value,
    refus_demande="Seuls l'administrateur et le trésorier de l'organisation demandent une approbation"))


def statut_demande(statut: StatutApprobation | None) -> str | None:
    """The mechanism's state for a state as finance publishes it (ANNULEE is RETIREE)."""
    if statut is None:
        return None
    return StatutDemande.RETIREE.value if statut is StatutApprobation.ANNULEE else statut.value


def etat(demande: DemandeApprobation) -> dict[str, object]:
    """The request's state in the audit trail, as before the four-eyes core (same keys, same spelling)."""
    return {"statut": POLITIQUE.statut(demande), "niveau_atteint": demande.niveau_atteint,
            "niveaux_requis": demande.niveaux_requis,
            "date_decision": demande.date_decision.isoformat() if demande.date_decision else None,
            "motif_annulation": demande.motif_retrait}


def reponse(demande: DemandeApprobation) -> ApprobationResponse:
    assert demande.montant is not None and demande.numero is not None and demande.nature is not None
    return ApprobationResponse(
        id=demande.id, numero=demande.numero, organisation_id=demande.organisation_id,
        type_objet=TypeObjetApprobation(demande.nature), objet_id=demande.objet_id, montant=demande.montant,
        devise=demande.devise or "XOF", motif=demande.motif, statut=StatutApprobation(POLITIQUE.statut(demande)),
        niveaux_requis=demande.niveaux_requis, niveau_atteint=demande.niveau_atteint,
        demande_par=demande.demande_par, date_demande=demande.date_demande, date_decision=demande.date_decision,
        motif_annulation=demande.motif_retrait,
        decisions=[DecisionResponse(niveau=d.niveau, decision=TypeDecision(d.decision), approbateur=d.decideur,
                                    role=d.role, commentaire=d.commentaire, date_decision=d.date_decision)
                   for d in demande.decisions],
        created_at=demande.created_at, updated_at=demande.updated_at)


async def ouvrir(session: AsyncSession, auth: AuthContext, *, organisation_id: uuid.UUID,
                 type_objet: TypeObjetApprobation, objet_id: uuid.UUID | None, montant: Decimal, devise: str,
                 motif: str) -> DemandeApprobation:
    """Open a request; the number of approvers follows the configured two-approver threshold."""
    approbation = await quatre_yeux.ouvrir(
        session, auth, POLITIQUE, organisation_id=organisation_id, nature=type_objet.value, objet_id=objet_id,
        montant=montant, devise=devise, motif=motif,
        numero=await sequential_number(session, "APP", datetime.now(UTC).year))
    await audit.record(session, auth, action="CREER", module=MODULE, entite_type=ENTITE,
                       entite_id=approbation.id, organisation_id=organisation_id,
                       after={"numero": approbation.numero, "type_objet": type_objet.value,
                              "objet_id": str(objet_id) if objet_id else None, "montant": str(montant),
                              "statut": approbation.statut, "niveaux_requis": approbation.niveaux_requis},
                       description=f"Demande d'approbation {approbation.numero} ({type_objet.value})")
    await notices.approbation_en_attente(
        session, organisation_id, Permission.FINANCE_DECIDER, f"Approbation {approbation.numero} à décider",
        f"{type_objet.value} de {montant_texte(montant, devise)} à approuver: {motif}",
        ("Approbation", approbation.id), auth.actor_name, sauf=auth.membre_id)
    return approbation


async def courantes(session: AsyncSession, auth: AuthContext | None, type_objet: TypeObjetApprobation,
                    objet_id: uuid.UUID, *, for_update: bool = False) -> list[DemandeApprobation]:
    """Finance requests about one object that are not withdrawn, newest first."""
    return await DemandeApprobationRepository(session, auth).courantes(GENRE, objet_id, nature=type_objet.value,
                                                                       for_update=for_update)


async def approbation_finance(session: AsyncSession, auth: AuthContext, approbation_id: uuid.UUID, *,
                      for_update: bool = False) -> DemandeApprobation | None:
    """One finance request by id, in the caller's scope."""
    return await DemandeApprobationRepository(session, auth).du_genre(GENRE, approbation_id, for_update=for_update)


class ApprobationService:
    def __init__(self, session: AsyncSession, auth: AuthContext) -> None:
        self.session = session
        self.auth = auth
        self.repo = ApprobationRepository(session, auth)
        self.demandes = DemandeApprobationRepository(session, auth)

    async def _get(self, approbation_id: uuid.UUID, *, for_update: bool = False) -> DemandeApprobation:
        approbation = await approbation_finance(self.session, self.auth, approbation_id, for_update=for_update)
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
            versement = await VERSEMENTS(self.session).versement(data.objet_id)
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
            en_cours = await courantes(self.session, self.auth, data.type_objet, data.objet_id, for_update=True)
            if any(a.statut in {StatutDemande.EN_ATTENTE, StatutDemande.APPROUVEE} for a in en_cours):
                raise Conflict("Une demande d'approbation en attente ou approuvée existe déjà pour cet objet")
        approbation = await ouvrir(self.session, self.auth, organisation_id=organisation.id,
                                   type_objet=data.type_objet, objet_id=data.objet_id, montant=montant,
                                   devise=organisation.devise, motif=data.motif)
        return reponse(approbation)

    async def obtenir(self, approbation_id: uuid.UUID) -> ApprobationResponse:
        return reponse(await self._get(approbation_id))

    async def lister(self, filters: ApprobationFilters, params: PageParams) -> Page[ApprobationResponse]:
        rows, total, exact = await self.demandes.search(filters, params)
        return Page[ApprobationResponse].build([reponse(r) for r in rows], params, total, exact)

    async def _decider(self, approbation_id: uuid.UUID, decision: TypeDecision,
                       commentaire: str | None) -> ApprobationResponse:
        approbation = await self._get(approbation_id, for_update=True)
        before = etat(approbation)
        ligne = await quatre_yeux.decider(self.session, self.auth, approbation, decision, commentaire)
        niveau = ligne.niveau
        action = "REJETER" if decision is TypeDecision.REJETEE else (
            "APPROUVER" if approbation.statut == StatutDemande.APPROUVEE else f"APPROUVER_NIVEAU_{niveau}")
        await audit.record(self.session, self.auth, action=action, module=MODULE, entite_type=ENTITE,
                           entite_id=approbation.id, organisation_id=approbation.organisation_id, before=before,
                           after={**etat(approbation), "niveau": niveau, "role": ligne.role},
                           severite="WARNING" if decision is TypeDecision.REJETEE else "INFO",
                           description=commentaire)
        return reponse(approbation)

    async def approuver(self, approbation_id: uuid.UUID, commentaire: str | None) -> ApprobationResponse:
        return await self._decider(approbation_id, TypeDecision.APPROUVEE, commentaire)

    async def rejeter(self, approbation_id: uuid.UUID, commentaire: str) -> ApprobationResponse:
        return await self._decider(approbation_id, TypeDecision.REJETEE, commentaire)

    async def annuler(self, approbation_id: uuid.UUID, motif: str) -> ApprobationResponse:
        approbation = await self._get(approbation_id, for_update=True)
        quatre_yeux.verifier_demandeur(self.auth, approbation, "Seul le demandeur retire sa demande d'approbation",
                                       admin=True)
        await annuler(self.session, self.auth, approbation, motif)
        return reponse(approbation)


async def annuler(session: AsyncSession, auth: AuthContext, approbation: DemandeApprobation, motif: str) -> None:
    before = etat(approbation)
    await quatre_yeux.retirer(session, approbation, motif)
    await audit.record(session, auth, action="ANNULER", module=MODULE, entite_type=ENTITE,
                       entite_id=approbation.id, organisation_id=approbation.organisation_id, before=before,
                       after=etat(approbation), description=motif)
