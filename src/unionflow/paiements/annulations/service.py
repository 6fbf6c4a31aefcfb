"""Money undone by two people (docs/decisions.md "quatre yeux").

Cancelling or refunding a validated payment, cancelling a delivered payout and reversing a manual accounting
entry are *requested* by one person (who holds the permission to handle that money) with a reason, and carried
out only when a second person holding ``annulation.approuver`` approves: never the requester, never the person who
recorded or confirmed the money. At or above ``finance.approbation.seuil_annulation`` the request also opens a
finance approval (finance/approbations, the payouts' mechanism), which the president or the organisation's
administrator approves first. Until the approval nothing moves: no reversal entry, no status change, no Wave
refund. What undoes nothing (a pending Wave session, a payout not yet sent) stays one step.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.comptabilite.repository import ComptabiliteRepository
from unionflow.config import Settings
from unionflow.core import audit
from unionflow.core.auth import AuthContext
from unionflow.core.errors import Conflict, Forbidden, InvalidState, NotFound, RegleMetier
from unionflow.core.permissions import Permission
from unionflow.finance.approbations import service as approbations
from unionflow.models import DemandeAnnulation, Paiement
from unionflow.models.annulation import StatutDemandeAnnulation, TypeAnnulation
from unionflow.models.approbation import StatutDemande
from unionflow.models.finance import TypeObjetApprobation
from unionflow.models.paiement import MethodePaiement, StatutPaiement
from unionflow.models.versement import ModeVersement, StatutVersement
from unionflow.notifications import workflow as notices
from unionflow.paiements.annulations import execution
from unionflow.paiements.annulations.repository import (
    DemandeAnnulationRepository,
    DemandeAnnulationSystemRepository,
)
from unionflow.paiements.annulations.schemas import DemandeAnnulationResponse, RembourserAvoirRequest
from unionflow.paiements.avoirs.service import AvoirService, verifier_reversible
from unionflow.paiements.repository import PaiementRepository, PaiementSystemRepository
from unionflow.paiements.schemas import MotifRequest, PaiementResponse
from unionflow.paiements.service import PaiementService
from unionflow.paiements.versements.repository import VersementRepository
from unionflow.paiements.versements.schemas import MotifRequest as MotifVersementRequest
from unionflow.paiements.versements.schemas import VersementResponse
from unionflow.paiements.versements.service import VersementService
from unionflow.wave.repository import WaveCheckoutRepository

T = TypeAnnulation
S = StatutDemandeAnnulation
MODULE = "ANNULATIONS"
SEUIL = "finance.approbation.seuil_annulation"
# The noun of each kind in audit actions: DEMANDER_ANNULATION, APPROUVER_REMBOURSEMENT, REJETER_CONTREPASSATION...
NOM = {T.ANNULATION_PAIEMENT: "ANNULATION", T.REMBOURSEMENT_PAIEMENT: "REMBOURSEMENT",
       T.ANNULATION_VERSEMENT: "ANNULATION_VERSEMENT", T.CONTREPASSATION_ECRITURE: "CONTREPASSATION",
       T.REMBOURSEMENT_AVOIR: "REMBOURSEMENT_AVOIR"}
LIBELLE = {T.ANNULATION_PAIEMENT: "Annulation du paiement", T.REMBOURSEMENT_PAIEMENT: "Remboursement du paiement",
           T.ANNULATION_VERSEMENT: "Annulation du versement", T.CONTREPASSATION_ECRITURE: "Contrepassation de",
           T.REMBOURSEMENT_AVOIR: "Remboursement de l'avoir"}
ETAT = ["statut", "decide_par", "commentaire", "date_decision", "numero_remboursement"]


def response(demande: DemandeAnnulation) -> DemandeAnnulationResponse:
    return DemandeAnnulationResponse.model_validate(demande)


class AnnulationService:
    def __init__(self, session: AsyncSession, auth: AuthContext, settings: Settings | None = None) -> None:
        self.session = session
        self.auth = auth
        self.settings = settings
        self.repo = DemandeAnnulationRepository(session, auth)
        self.system = DemandeAnnulationSystemRepository(session)

    # Requests: one person asks; nothing moves.

    async def annuler_paiement(self, paiement_id: uuid.UUID,
                               data: MotifRequest) -> PaiementResponse | DemandeAnnulationResponse:
        paiement = await self._paiement(paiement_id)
        if paiement.statut == StatutPaiement.EN_ATTENTE:
            # Not money yet (a declaration or a Wave session waiting): closing it undoes nothing.
            return await PaiementService(self.session, self.auth, self.settings).annuler_en_attente(paiement)
        if paiement.methode == MethodePaiement.WAVE and await WaveCheckoutRepository(self.session).by_paiements(
                [paiement.id]):
            raise InvalidState("Un paiement Wave encaissé ne s'annule pas: utilisez le remboursement")
        return await self._demander_paiement(paiement_id, T.ANNULATION_PAIEMENT, data.motif)

    async def rembourser_paiement(self, paiement_id: uuid.UUID, data: MotifRequest) -> DemandeAnnulationResponse:
        await self._paiement(paiement_id)
        return await self._demander_paiement(paiement_id, T.REMBOURSEMENT_PAIEMENT, data.motif)

    async def _paiement(self, paiement_id: uuid.UUID) -> Paiement:
        paiement = await PaiementRepository(self.session, self.auth).get(paiement_id)
        if paiement is None:
            raise NotFound("Paiement introuvable")
        # A member sees his own payment but only the treasury may ask to undo it.
        self.auth.require(Permission.PAIEMENT_ANNULER, paiement.organisation_id,
                          "Seule la trésorerie de l'organisation demande l'annulation ou le remboursement d'un "
                          "paiement")
        return paiement

    async def _demander_paiement(self, paiement_id: uuid.UUID, type_annulation: TypeAnnulation,
                                 motif: str) -> DemandeAnnulationResponse:
        # The payment's row lock serialises two requests on one payment.
        paiement = await PaiementSystemRepository(self.session).get_for_update(paiement_id)
        assert paiement is not None
        await self.session.refresh(paiement)
        if paiement.statut != StatutPaiement.VALIDE:
            raise InvalidState(f"Seul un paiement validé peut être annulé ou remboursé (statut: {paiement.statut})")
        # Refused at once when its credit already paid dues (checked again when carried out).
        await verifier_reversible(self.session, paiement)
        await self._aucune_en_attente(paiement_id=paiement.id)
        return await self._ouvrir(DemandeAnnulation(
            organisation_id=paiement.organisation_id, type_annulation=type_annulation.value, paiement_id=paiement.id,
            membre_id=paiement.membre_id, reference=paiement.numero_recu, montant=paiement.montant,
            devise=paiement.devise, motif=motif))

    async def annuler_versement(self, versement_id: uuid.UUID,
                                data: MotifVersementRequest) -> VersementResponse | DemandeAnnulationResponse:
        versement = await VersementRepository(self.session, self.auth).get(versement_id, for_update=True)
        if versement is None:
            raise NotFound("Versement introuvable")
        if versement.statut != StatutVersement.REUSSI:
            # Nothing left the treasury yet: withdrawing it is one step, as before.
            assert self.settings is not None
            return await VersementService(self.session, self.auth, self.settings).annuler(versement_id, data)
        self.auth.require(Permission.VERSEMENT_INITIER, versement.organisation_id,
                          "Seule la trésorerie de l'organisation demande l'annulation d'un versement")
        if versement.mode != ModeVersement.MANUEL:
            raise InvalidState("Un versement Wave exécuté ne s'annule pas: l'argent est chez le bénéficiaire; "
                               "enregistrez son retour comme un paiement ou une écriture")
        await self._aucune_en_attente(versement_id=versement.id)
        return await self._ouvrir(DemandeAnnulation(
            organisation_id=versement.organisation_id, type_annulation=T.ANNULATION_VERSEMENT.value,
            versement_id=versement.id, reference=versement.numero, montant=versement.montant,
            devise=versement.devise, motif=data.motif))

    async def contrepasser_ecriture(self, ecriture_id: uuid.UUID, motif: str) -> DemandeAnnulationResponse:
        ecriture = await ComptabiliteRepository(self.session, self.auth).ecriture(ecriture_id)
        if ecriture is None:
            raise NotFound("Écriture comptable introuvable")
        self.auth.require(Permission.COMPTABILITE_ECRIRE, ecriture.organisation_id,
                          "Seuls l'administrateur et le trésorier de l'organisation demandent une contrepassation")
        execution.contrepassable(ecriture)
        if await self.system.contrepassee(ecriture.id):
            raise Conflict(f"L'écriture {ecriture.numero_piece} est déjà contrepassée")
        await self._aucune_en_attente(ecriture_id=ecriture.id)
        return await self._ouvrir(DemandeAnnulation(
            organisation_id=ecriture.organisation_id, type_annulation=T.CONTREPASSATION_ECRITURE.value,
            ecriture_id=ecriture.id, reference=ecriture.numero_piece, montant=ecriture.montant_total,
            devise="XOF", motif=motif))

    async def rembourser_avoir(self, data: RembourserAvoirRequest) -> DemandeAnnulationResponse:
        """Ask to pay a member's credit back: nothing moves before a second person approves, and the
        balance is checked again then, under the lock of the payments holding it."""
        avoirs = AvoirService(self.session, self.auth)
        await avoirs.verifier_acces(data.membre_id, data.organisation_id, imputer=False)
        self.auth.require(Permission.PAIEMENT_ANNULER, data.organisation_id,
                          "Seule la trésorerie de l'organisation demande le remboursement d'un avoir")
        solde = await avoirs.solde(data.membre_id, data.organisation_id)
        if data.montant > solde:
            raise RegleMetier(f"Le montant demandé ({data.montant}) dépasse l'avoir du membre ({solde})")
        membre = await PaiementRepository(self.session, self.auth).membre(data.membre_id)
        assert membre is not None
        return await self._ouvrir(DemandeAnnulation(
            organisation_id=data.organisation_id, type_annulation=T.REMBOURSEMENT_AVOIR.value,
            membre_id=data.membre_id, reference=f"AVOIR-{membre.numero_membre}"[:40], montant=data.montant,
            devise="XOF", motif=data.motif))

    async def _aucune_en_attente(self, **objet: uuid.UUID) -> None:
        pending = await self.system.en_attente(**objet)
        if pending is not None:
            raise Conflict("Une demande d'annulation est déjà en attente pour cet objet",
                           extra={"demandeId": str(pending.id)})

    async def _ouvrir(self, demande: DemandeAnnulation) -> DemandeAnnulationResponse:
        demande.statut = S.EN_ATTENTE.value
        demande.demande_par = self.auth.actor_name
        demande.demande_par_sub = self.auth.personne
        demande.date_demande = datetime.now(UTC)
        self.repo.add(demande)
        await self.session.flush()
        type_annulation = T(demande.type_annulation)
        quoi = f"{LIBELLE[type_annulation]} {demande.reference} ({demande.montant} {demande.devise})"
        if demande.montant >= await approbations.seuil(self.session, SEUIL):
            approbation = await approbations.ouvrir(
                self.session, self.auth, organisation_id=demande.organisation_id,
                type_objet=TypeObjetApprobation.ANNULATION, objet_id=demande.id, montant=demande.montant,
                devise=demande.devise, motif=f"{quoi}: {demande.motif}")
            demande.approbation_id = approbation.id
            await self.session.flush()
        await audit.record(self.session, self.auth, action=f"DEMANDER_{NOM[type_annulation]}", module=MODULE,
                           entite_type="DemandeAnnulation", entite_id=demande.id,
                           organisation_id=demande.organisation_id, severite="WARNING",
                           after=audit.snapshot(demande, ["type_annulation", "reference", "montant", "motif",
                                                          "statut", "approbation_id"]),
                           description=f"{quoi} demandée par {demande.demande_par}. Motif: {demande.motif}")
        await notices.approbation_en_attente(
            self.session, demande.organisation_id, Permission.ANNULATION_APPROUVER, f"{quoi} à approuver",
            f"{demande.demande_par} demande: {quoi}. Motif: {demande.motif}. Rien ne bouge avant l'approbation "
            "d'une seconde personne.", ("DemandeAnnulation", demande.id), self.auth.actor_name,
            sauf=self.auth.membre_id)
        return response(demande)

    # Reading

    async def _get(self, demande_id: uuid.UUID, *, for_update: bool = False) -> DemandeAnnulation:
        demande = await self.repo.get(demande_id, for_update=for_update)
        if demande is None:
            raise NotFound("Demande d'annulation introuvable")
        return demande

    async def obtenir(self, demande_id: uuid.UUID) -> DemandeAnnulationResponse:
        return response(await self._get(demande_id))

    async def lister(self, organisation_id: uuid.UUID | None,
                     statut: StatutDemandeAnnulation | None) -> list[DemandeAnnulationResponse]:
        return [response(d) for d in await self.repo.lister(organisation_id, statut.value if statut else None)]

    # Decisions: a second person.

    async def _decidable(self, demande_id: uuid.UUID) -> DemandeAnnulation:
        demande = await self._get(demande_id, for_update=True)
        self.auth.require(Permission.ANNULATION_APPROUVER, demande.organisation_id,
                          "Seuls le trésorier, le président et l'administrateur de l'organisation décident d'une "
                          "annulation")
        if demande.statut != S.EN_ATTENTE:
            raise InvalidState(f"Demande d'annulation déjà {demande.statut}")
        if demande.demande_par_sub == self.auth.personne:
            raise Forbidden("Principe des quatre yeux: on ne décide pas de sa propre demande d'annulation")
        return demande

    async def approuver(self, demande_id: uuid.UUID, commentaire: str | None) -> DemandeAnnulationResponse:
        demande = await self._decidable(demande_id)
        if self.auth.actor_name in await execution.auteurs(self.session, demande):
            raise Forbidden("Principe des quatre yeux: la personne qui a enregistré ou confirmé cet argent ne "
                            "peut pas approuver son annulation")
        await self._approbation_accordee(demande)
        before = audit.snapshot(demande, ETAT)
        self._decision(demande, S.APPROUVEE, commentaire)
        await execution.executer(self.session, self.auth, self.settings, demande)
        await self.session.flush()
        type_annulation = T(demande.type_annulation)
        await audit.record(self.session, self.auth, action=f"APPROUVER_{NOM[type_annulation]}", module=MODULE,
                           entite_type="DemandeAnnulation", entite_id=demande.id,
                           organisation_id=demande.organisation_id, severite="WARNING", before=before,
                           after={**audit.snapshot(demande, ETAT), "demandePar": demande.demande_par,
                                  "approuvePar": self.auth.actor_name},
                           description=f"{LIBELLE[type_annulation]} {demande.reference} demandée par "
                                       f"{demande.demande_par}, approuvée par {self.auth.actor_name}. Motif: "
                                       f"{demande.motif}" + (f". Commentaire: {commentaire}" if commentaire else ""))
        await execution.avertir_membre(self.session, demande, self.auth.actor_name)
        return response(demande)

    async def _approbation_accordee(self, demande: DemandeAnnulation) -> None:
        if demande.approbation_id is None:
            return
        approbation = await approbations.approbation_finance(self.session, self.auth, demande.approbation_id)
        if approbation is None or approbation.statut != StatutDemande.APPROUVEE:
            etat = approbations.POLITIQUE.statut(approbation) if approbation else "introuvable"
            numero = approbation.numero if approbation else ""
            raise InvalidState(f"Au-delà du seuil, l'annulation attend d'abord le circuit d'approbation: demande "
                               f"{numero} {etat}")

    def _decision(self, demande: DemandeAnnulation, statut: StatutDemandeAnnulation, commentaire: str | None) -> None:
        demande.statut = statut.value
        demande.decide_par = self.auth.actor_name
        demande.decide_par_sub = self.auth.personne
        demande.commentaire = commentaire
        demande.date_decision = datetime.now(UTC)

    async def rejeter(self, demande_id: uuid.UUID, commentaire: str) -> DemandeAnnulationResponse:
        demande = await self._decidable(demande_id)
        before = audit.snapshot(demande, ETAT)
        self._decision(demande, S.REJETEE, commentaire)
        await self._retirer_approbation(demande, f"Demande d'annulation rejetée: {commentaire}")
        await self.session.flush()
        await audit.record(self.session, self.auth, action=f"REJETER_{NOM[T(demande.type_annulation)]}",
                           module=MODULE, entite_type="DemandeAnnulation", entite_id=demande.id,
                           organisation_id=demande.organisation_id, severite="WARNING", before=before,
                           after=audit.snapshot(demande, ETAT),
                           description=f"Demande de {demande.demande_par} rejetée par {self.auth.actor_name}: "
                                       f"{commentaire}")
        return response(demande)

    async def retirer(self, demande_id: uuid.UUID) -> DemandeAnnulationResponse:
        demande = await self._get(demande_id, for_update=True)
        if demande.demande_par_sub != self.auth.personne:
            raise Forbidden("Seul le demandeur retire sa demande d'annulation")
        if demande.statut != S.EN_ATTENTE:
            raise InvalidState(f"Demande d'annulation déjà {demande.statut}")
        before = audit.snapshot(demande, ETAT)
        demande.statut = S.RETIREE.value
        demande.date_decision = datetime.now(UTC)
        await self._retirer_approbation(demande, "Demande d'annulation retirée par le demandeur")
        await self.session.flush()
        await audit.record(self.session, self.auth, action=f"RETIRER_{NOM[T(demande.type_annulation)]}",
                           module=MODULE, entite_type="DemandeAnnulation", entite_id=demande.id,
                           organisation_id=demande.organisation_id, before=before, after=audit.snapshot(demande, ETAT))
        return response(demande)

    async def _retirer_approbation(self, demande: DemandeAnnulation, motif: str) -> None:
        if demande.approbation_id is None:
            return
        approbation = await approbations.approbation_finance(self.session, self.auth, demande.approbation_id,
                                                             for_update=True)
        if approbation is not None and approbation.statut == StatutDemande.EN_ATTENTE:
            await approbations.annuler(self.session, self.auth, approbation, motif)
