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
from decimal import Decimal

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.approbations import service as quatre_yeux
from unionflow.approbations.politiques import Politique, enregistrer
from unionflow.approbations.repository import DemandeApprobationRepository, DemandeApprobationSystemRepository
from unionflow.comptabilite.repository import ComptabiliteRepository
from unionflow.config import Settings
from unionflow.core import audit
from unionflow.core.auth import AuthContext
from unionflow.core.errors import Conflict, InvalidState, NotFound, RegleMetier
from unionflow.core.montants import montant_texte
from unionflow.core.permissions import Permission
from unionflow.core.roles import Role
from unionflow.finance.approbations import service as approbations
from unionflow.models import Paiement
from unionflow.models.annulation import StatutDemandeAnnulation, TypeAnnulation, VueAnnulation
from unionflow.models.approbation import DemandeApprobation, GenreDemande, StatutDemande, TypeDecision
from unionflow.models.finance import TypeObjetApprobation
from unionflow.models.paiement import MethodePaiement, StatutPaiement
from unionflow.models.versement import ModeVersement, StatutVersement
from unionflow.notifications import workflow as notices
from unionflow.paiements.annulations import execution
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
GENRE = GenreDemande.ANNULATION.value
# Requests listed at most (newest first).
LISTE_MAX = 500


def etat(vue: VueAnnulation) -> dict[str, object]:
    """The request's state in the audit trail (same keys as before the four-eyes core)."""
    return {"statut": vue.statut, "decide_par": vue.decide_par, "commentaire": vue.commentaire,
            "date_decision": vue.date_decision.isoformat() if vue.date_decision else None,
            "numero_remboursement": vue.numero_remboursement}


def response(vue: VueAnnulation) -> DemandeAnnulationResponse:
    return DemandeAnnulationResponse(
        id=vue.id, organisation_id=vue.organisation_id, type_annulation=TypeAnnulation(vue.type_annulation),
        paiement_id=vue.paiement_id, versement_id=vue.versement_id, ecriture_id=vue.ecriture_id,
        reference=vue.reference, montant=vue.montant, devise=vue.devise or "XOF", motif=vue.motif,
        statut=StatutDemandeAnnulation(vue.statut), demande_par=vue.demande_par, date_demande=vue.date_demande,
        approbation_id=vue.approbation_id, decide_par=vue.decide_par, commentaire=vue.commentaire,
        date_decision=vue.date_decision, numero_remboursement=vue.numero_remboursement)


async def _executer(session: AsyncSession, auth: AuthContext, demande: DemandeApprobation,
                    settings: Settings | None) -> None:
    """What an approved undo carries out: above the threshold, only once the finance approval is granted."""
    vue = VueAnnulation(demande)
    if vue.approbation_id is not None:
        approbation = await approbations.approbation_finance(session, auth, vue.approbation_id)
        if approbation is None or approbation.statut != StatutDemande.APPROUVEE:
            etat_finance = approbations.POLITIQUE.statut(approbation) if approbation else "introuvable"
            numero = approbation.numero if approbation else ""
            raise InvalidState(f"Au-delà du seuil, l'annulation attend d'abord le circuit d'approbation: demande "
                               f"{numero} {etat_finance}")
    await execution.executer(session, auth, settings, vue)


POLITIQUE = enregistrer(Politique(
    genre=GENRE, nom="Demande d'annulation", demander=Permission.PAIEMENT_ANNULER,
    demander_par_nature={T.ANNULATION_VERSEMENT.value: Permission.VERSEMENT_INITIER,
                         T.CONTREPASSATION_ECRITURE.value: Permission.COMPTABILITE_ECRIRE},
    decider=Permission.ANNULATION_APPROUVER,
    roles_decideurs=(Role.PRESIDENT.value, Role.ADMIN_ORGANISATION.value, Role.TRESORIER.value, Role.ADMIN.value,
                     Role.SUPER_ADMIN.value),
    refus_decideur="Seuls le trésorier, le président et l'administrateur de l'organisation décident d'une "
                   "annulation",
    chemin="/api/annulations/{id}", auteurs=execution.auteurs, executer=_executer,
    refus_demandeur="Principe des quatre yeux: on ne décide pas de sa propre demande d'annulation",
    refus_auteur="Principe des quatre yeux: la personne qui a enregistré ou confirmé cet argent ne peut pas "
                 "approuver son annulation"))


class AnnulationService:
    def __init__(self, session: AsyncSession, auth: AuthContext, settings: Settings | None = None) -> None:
        self.session = session
        self.auth = auth
        self.settings = settings
        self.repo = DemandeApprobationRepository(session, auth)
        self.system = DemandeApprobationSystemRepository(session)

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
        await self._aucune_en_attente(paiement.id)
        return await self._ouvrir(
            type_annulation, paiement.id, organisation_id=paiement.organisation_id, membre_id=paiement.membre_id,
            reference=paiement.numero_recu, montant=paiement.montant, devise=paiement.devise, motif=motif)

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
        await self._aucune_en_attente(versement.id)
        return await self._ouvrir(
            T.ANNULATION_VERSEMENT, versement.id, organisation_id=versement.organisation_id,
            reference=versement.numero, montant=versement.montant, devise=versement.devise, motif=data.motif)

    async def contrepasser_ecriture(self, ecriture_id: uuid.UUID, motif: str) -> DemandeAnnulationResponse:
        ecriture = await ComptabiliteRepository(self.session, self.auth).ecriture(ecriture_id)
        if ecriture is None:
            raise NotFound("Écriture comptable introuvable")
        self.auth.require(Permission.COMPTABILITE_ECRIRE, ecriture.organisation_id,
                          "Seuls l'administrateur et le trésorier de l'organisation demandent une contrepassation")
        execution.contrepassable(ecriture)
        if await self.system.sur_objet(GENRE, ecriture.id, StatutDemande.APPROUVEE.value):
            raise Conflict(f"L'écriture {ecriture.numero_piece} est déjà contrepassée")
        await self._aucune_en_attente(ecriture.id)
        return await self._ouvrir(
            T.CONTREPASSATION_ECRITURE, ecriture.id, organisation_id=ecriture.organisation_id,
            reference=ecriture.numero_piece, montant=ecriture.montant_total, devise="XOF", motif=motif)

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
        return await self._ouvrir(
            T.REMBOURSEMENT_AVOIR, data.membre_id, organisation_id=data.organisation_id, membre_id=data.membre_id,
            reference=f"AVOIR-{membre.numero_membre}"[:40], montant=data.montant, devise="XOF", motif=data.motif)

    async def _aucune_en_attente(self, objet_id: uuid.UUID) -> None:
        pending = await self.system.sur_objet(GENRE, objet_id, StatutDemande.EN_ATTENTE.value)
        if pending is not None:
            raise Conflict("Une demande d'annulation est déjà en attente pour cet objet",
                           extra={"demandeId": str(pending.id)})

    async def _ouvrir(self, type_annulation: TypeAnnulation, objet_id: uuid.UUID, *, organisation_id: uuid.UUID,
                      reference: str, montant: Decimal, devise: str, motif: str,
                      membre_id: uuid.UUID | None = None) -> DemandeAnnulationResponse:
        demande = VueAnnulation(await quatre_yeux.ouvrir(
            self.session, self.auth, POLITIQUE, organisation_id=organisation_id, motif=motif,
            nature=type_annulation.value, objet_id=objet_id, montant=montant, devise=devise,
            details={"reference": reference, "membre_id": str(membre_id) if membre_id else None}))
        quoi = f"{LIBELLE[type_annulation]} {demande.reference} ({montant_texte(demande.montant, demande.devise)})"
        if demande.montant >= await approbations.seuil(self.session, SEUIL):
            approbation = await approbations.ouvrir(
                self.session, self.auth, organisation_id=demande.organisation_id,
                type_objet=TypeObjetApprobation.ANNULATION, objet_id=demande.id, montant=demande.montant,
                devise=demande.devise, motif=f"{quoi}: {demande.motif}")
            demande.demande.details = {**(demande.details or {}), "approbation_id": str(approbation.id)}
            await self.session.flush()
        await audit.record(self.session, self.auth, action=f"DEMANDER_{NOM[type_annulation]}", module=MODULE,
                           entite_type="DemandeAnnulation", entite_id=demande.id,
                           organisation_id=demande.organisation_id, severite="WARNING",
                           after={"type_annulation": type_annulation.value, "reference": demande.reference,
                                  "montant": str(demande.montant), "motif": demande.motif,
                                  "statut": demande.statut,
                                  "approbation_id": str(demande.approbation_id) if demande.approbation_id else None},
                           description=f"{quoi} demandée par {demande.demande_par}. Motif: {demande.motif}")
        await notices.approbation_en_attente(
            self.session, demande.organisation_id, Permission.ANNULATION_APPROUVER, f"{quoi} à approuver",
            f"{demande.demande_par} demande: {quoi}. Motif: {demande.motif}. Rien ne bouge avant l'approbation "
            "d'une seconde personne.", ("DemandeAnnulation", demande.id), self.auth.actor_name,
            sauf=self.auth.membre_id)
        return response(demande)

    # Reading

    async def _get(self, demande_id: uuid.UUID, *, for_update: bool = False) -> VueAnnulation:
        demande = await self.repo.du_genre(GENRE, demande_id, for_update=for_update)
        if demande is None:
            raise NotFound("Demande d'annulation introuvable")
        return VueAnnulation(demande)

    async def obtenir(self, demande_id: uuid.UUID) -> DemandeAnnulationResponse:
        return response(await self._get(demande_id))

    async def lister(self, organisation_id: uuid.UUID | None,
                     statut: StatutDemandeAnnulation | None) -> list[DemandeAnnulationResponse]:
        rows = await self.repo.lister(GENRE, organisation_id, statut.value if statut else None, LISTE_MAX)
        return [response(VueAnnulation(d)) for d in rows]

    # Decisions: a second person (approbations/service.py applies the policy).

    async def approuver(self, demande_id: uuid.UUID, commentaire: str | None) -> DemandeAnnulationResponse:
        demande = await self._get(demande_id, for_update=True)
        before = etat(demande)
        await quatre_yeux.decider(self.session, self.auth, demande.demande, TypeDecision.APPROUVEE, commentaire,
                                  self.settings)
        await self.session.flush()
        type_annulation = T(demande.type_annulation)
        await audit.record(self.session, self.auth, action=f"APPROUVER_{NOM[type_annulation]}", module=MODULE,
                           entite_type="DemandeAnnulation", entite_id=demande.id,
                           organisation_id=demande.organisation_id, severite="WARNING", before=before,
                           after={**etat(demande), "demandePar": demande.demande_par,
                                  "approuvePar": self.auth.actor_name},
                           description=f"{LIBELLE[type_annulation]} {demande.reference} demandée par "
                                       f"{demande.demande_par}, approuvée par {self.auth.actor_name}. Motif: "
                                       f"{demande.motif}" + (f". Commentaire: {commentaire}" if commentaire else ""))
        await execution.avertir_membre(self.session, demande, self.auth.actor_name)
        return response(demande)

    async def rejeter(self, demande_id: uuid.UUID, commentaire: str) -> DemandeAnnulationResponse:
        demande = await self._get(demande_id, for_update=True)
        before = etat(demande)
        await quatre_yeux.decider(self.session, self.auth, demande.demande, TypeDecision.REJETEE, commentaire)
        await self._retirer_approbation(demande, f"Demande d'annulation rejetée: {commentaire}")
        await self.session.flush()
        await audit.record(self.session, self.auth, action=f"REJETER_{NOM[T(demande.type_annulation)]}",
                           module=MODULE, entite_type="DemandeAnnulation", entite_id=demande.id,
                           organisation_id=demande.organisation_id, severite="WARNING", before=before,
                           after=etat(demande),
                           description=f"Demande de {demande.demande_par} rejetée par {self.auth.actor_name}: "
                                       f"{commentaire}")
        return response(demande)

    async def retirer(self, demande_id: uuid.UUID) -> DemandeAnnulationResponse:
        demande = await self._get(demande_id, for_update=True)
        quatre_yeux.verifier_demandeur(self.auth, demande.demande, "Seul le demandeur retire sa demande d'annulation")
        before = etat(demande)
        await quatre_yeux.retirer(self.session, demande.demande, None)
        await self._retirer_approbation(demande, "Demande d'annulation retirée par le demandeur")
        await self.session.flush()
        await audit.record(self.session, self.auth, action=f"RETIRER_{NOM[T(demande.type_annulation)]}",
                           module=MODULE, entite_type="DemandeAnnulation", entite_id=demande.id,
                           organisation_id=demande.organisation_id, before=before, after=etat(demande))
        return response(demande)

    async def _retirer_approbation(self, demande: VueAnnulation, motif: str) -> None:
        if demande.approbation_id is None:
            return
        approbation = await approbations.approbation_finance(self.session, self.auth, demande.approbation_id,
                                                             for_update=True)
        if approbation is not None and approbation.statut == StatutDemande.EN_ATTENTE:
            await approbations.annuler(self.session, self.auth, approbation, motif)
