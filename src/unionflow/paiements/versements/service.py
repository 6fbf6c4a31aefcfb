"""Payouts: created with their Wave idempotency key already stored, then confirmed (sent) by a second
person of the treasury; a retry of the confirmation reuses the stored key, so Wave never pays twice."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from decimal import Decimal

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.audit.repository import personnes
from unionflow.comptabilite.ecritures.service import comptabiliser_versement
from unionflow.comptabilite.ecritures.tresorerie import JOURNAUX_TRESORERIE, TYPE_VERSEMENT
from unionflow.comptabilite.repository import ComptabiliteSystemRepository
from unionflow.config import Settings
from unionflow.core import audit
from unionflow.core.auth import AuthContext
from unionflow.core.errors import Forbidden, InvalidState, NotFound, RegleMetier
from unionflow.core.montants import montant_texte
from unionflow.core.numbering import sequential_number
from unionflow.core.pagination import Page, PageParams
from unionflow.core.permissions import Permission
from unionflow.core.visibility import staff_sees
from unionflow.demandes_aide.repository import DemandeAideSystemRepository
from unionflow.finance.approbations import versement_service as approbations
from unionflow.lcbft.detection import evaluer_versement
from unionflow.models import Tresorerie, Versement
from unionflow.models.demande_aide import StatutDemandeAide
from unionflow.models.tresorerie import TypeTresorerie
from unionflow.models.versement import ModeVersement, ObjetVersement, StatutVersement
from unionflow.notifications import workflow as notices
from unionflow.organisations.repository import OrganisationRepository
from unionflow.paiements.repository import PaiementRepository
from unionflow.paiements.versements.quote_part import comptabiliser_quote_part
from unionflow.paiements.versements.repository import VersementFilters, VersementRepository
from unionflow.paiements.versements.schemas import (
    ConfirmerVersementRequest,
    CreateVersementRequest,
    MotifRequest,
    VersementResponse,
)
from unionflow.tresoreries.service import tresorerie_de_sortie, verifier_sortie
from unionflow.wave.service import client_for_organisation, envoyer_payout
from unionflow.webhooks import emission as webhooks

MODULE = "VERSEMENTS"
# Wave's payout status → ours.
WAVE_STATUS = {"succeeded": StatutVersement.REUSSI, "failed": StatutVersement.ECHOUE,
               "reversed": StatutVersement.ECHOUE, "processing": StatutVersement.EN_COURS}


class VersementService:
    def __init__(self, session: AsyncSession, auth: AuthContext, settings: Settings) -> None:
        self.session = session
        self.auth = auth
        self.settings = settings
        self.repo = VersementRepository(session, auth)
        self.demandes = DemandeAideSystemRepository(session)

    async def _get(self, versement_id: uuid.UUID, *, for_update: bool = False) -> Versement:
        versement = await self.repo.get(versement_id, for_update=for_update)
        if versement is None:
            raise NotFound("Versement introuvable")
        return versement

    async def obtenir(self, versement_id: uuid.UUID) -> VersementResponse:
        return VersementResponse.model_validate(await self._get(versement_id))

    async def lister(self, filters: VersementFilters, params: PageParams) -> Page[VersementResponse]:
        rows, total, exact = await self.repo.search(filters, params)
        return Page[VersementResponse].build([VersementResponse.model_validate(r) for r in rows], params, total, exact)

    async def creer(self, data: CreateVersementRequest, *,
                    destinataire_id: uuid.UUID | None = None) -> VersementResponse:
        """``destinataire_id``: the federation receiving a quote-part (federation/service.py, the only caller
        that gives it)."""
        if not staff_sees(self.auth, data.organisation_id):
            raise NotFound("Organisation introuvable")
        self.auth.require(Permission.VERSEMENT_INITIER, data.organisation_id,
                          "Seule la trésorerie de l'organisation initie un versement")
        # Lock the organisation: concurrent payouts are checked against the balance one at a time.
        organisation = await OrganisationRepository(self.session, self.auth).lock_organisation(data.organisation_id)
        if organisation is None:
            raise NotFound("Organisation introuvable")
        if data.objet_type in {ObjetVersement.COTISATIONS, ObjetVersement.ADHESIONS}:
            encaisse = await PaiementRepository(self.session, self.auth).encaisse(
                organisation.id, cotisations=data.objet_type == ObjetVersement.COTISATIONS)
            available = encaisse - await self.repo.verse(organisation.id, data.objet_type)
            if data.montant > available:
                raise InvalidState(f"Solde insuffisant: {available} {data.devise} encaissés et non encore versés "
                                   f"au titre des {data.objet_type.lower()}")
        if data.objet_type == ObjetVersement.AIDE:
            await self._check_aide(data)
        tresorerie = await tresorerie_de_sortie(self.session, organisation.id, data.tresorerie_id,
                                                TYPE_VERSEMENT[data.mode], self.auth)
        if data.mode == ModeVersement.WAVE and tresorerie.type_tresorerie != TypeTresorerie.WAVE:
            raise RegleMetier(f"Un versement Wave sort d'une trésorerie Wave, pas de « {tresorerie.nom} »")
        if data.compte_charge is not None:
            await self._check_compte_charge(organisation.id, data.compte_charge)
        if (data.objet_type == ObjetVersement.QUOTE_PART) != (destinataire_id is not None):
            raise RegleMetier("Une quote-part se verse à la fédération par POST /api/federations/quotes-parts")
        compte_id = None
        if data.mode == ModeVersement.WAVE:
            _, compte_id = await client_for_organisation(self.session, self.settings, organisation.id)
        versement = Versement(
            numero=await sequential_number(self.session, "VER", datetime.now(UTC).year),
            organisation_id=organisation.id, montant=data.montant, devise=data.devise, mode=data.mode,
            objet_type=data.objet_type, objet_id=data.objet_id, motif=data.motif,
            beneficiaire_nom=data.beneficiaire_nom, beneficiaire_telephone=data.beneficiaire_telephone,
            statut=StatutVersement.EN_COURS, cle_idempotence=f"ver-{uuid.uuid4().hex}", compte_wave_id=compte_id,
            cree_par=self.auth.actor_name, organisation_destinataire_id=destinataire_id, tresorerie_id=tresorerie.id,
            compte_charge=data.compte_charge)
        self.repo.add(versement)
        await self.session.flush()
        await approbations.demander_pour_versement(self.session, self.auth, versement)
        await audit.record(self.session, self.auth, action="CREER", module=MODULE, entite_type="Versement",
                           entite_id=versement.id, organisation_id=organisation.id,
                           after=audit.snapshot(versement, ["numero", "montant", "mode", "objet_type", "statut"]))
        # Four-eyes: someone else confirms the payout; tell those who may.
        await notices.approbation_en_attente(
            self.session, organisation.id, Permission.VERSEMENT_CONFIRMER, f"Versement {versement.numero} à confirmer",
            f"Versement de {montant_texte(versement.montant, versement.devise)} à {versement.beneficiaire_nom} "
            f"({versement.motif}) "
            "en attente de confirmation.", ("Versement", versement.id), self.auth.actor_name,
            sauf=self.auth.membre_id)
        return VersementResponse.model_validate(versement)

    async def _check_compte_charge(self, organisation_id: uuid.UUID, numero: str) -> None:
        """The chosen counterpart: an active account of the organisation's chart, class 2 (equipment bought) or
        class 6 (an expense)."""
        compte = await ComptabiliteSystemRepository(self.session).get_compte_by_numero(organisation_id, numero)
        if compte is None:
            raise RegleMetier(f"Le compte {numero} n'existe pas dans le plan comptable de l'organisation")
        if not compte.actif:
            raise RegleMetier(f"Le compte {numero} est inactif")
        if compte.classe not in (2, 6):
            raise RegleMetier(f"Le compte {numero} n'est ni une immobilisation (classe 2) ni une charge (classe 6)")

    async def _check_aide(self, data: CreateVersementRequest) -> None:
        """An aid is paid only once granted, and never beyond what was granted (pending payouts included)."""
        if data.objet_id is None:
            raise RegleMetier("objetId (la demande d'aide versée) est obligatoire pour un versement AIDE")
        demande = await self.demandes.lock_for_organisation(data.objet_id, data.organisation_id)
        if demande is None:
            raise NotFound("Demande d'aide introuvable")
        if demande.statut != StatutDemandeAide.APPROUVEE:
            raise InvalidState(f"La demande d'aide {demande.numero_reference} n'est pas approuvée "
                               f"(statut: {demande.statut})")
        if demande.devise != data.devise:
            raise RegleMetier(f"Devise {data.devise} différente de celle de la demande ({demande.devise})")
        accorde = demande.montant_accorde or Decimal("0")
        engage = await self.repo.engage(ObjetVersement.AIDE, demande.id)
        if engage + data.montant > accorde:
            raise InvalidState(f"Le versement dépasse l'aide accordée: {accorde} {demande.devise} accordés, "
                               f"{engage} déjà versés ou en cours, reste {max(accorde - engage, Decimal('0'))}")

    async def _tresorerie(self, versement: Versement) -> Tresorerie | None:
        """The payout's treasury (None: a payout created before treasuries, booked as it always was)."""
        if versement.tresorerie_id is None:
            return None
        return await tresorerie_de_sortie(self.session, versement.organisation_id, versement.tresorerie_id,
                                          TYPE_VERSEMENT[versement.mode], self.auth)

    async def _book(self, versement: Versement, tresorerie: Tresorerie | None) -> None:
        """Money that left is booked and screened in the same transaction as its status."""
        compte = None if tresorerie is None else (
            tresorerie.numero_compte, JOURNAUX_TRESORERIE[tresorerie.type_tresorerie][0])
        await comptabiliser_versement(self.session, versement, self.auth, tresorerie=compte)
        await comptabiliser_quote_part(self.session, versement, self.auth)
        membre_id = None
        if versement.objet_type == ObjetVersement.AIDE and versement.objet_id is not None:
            demande = await self.demandes.lock_for_organisation(versement.objet_id, versement.organisation_id)
            membre_id = demande.membre_id if demande is not None else None
            if demande is not None:
                # The member learns his aid was paid.
                await notices.aide_versee(self.session, demande, versement, self.auth.actor_name)
        await evaluer_versement(self.session, versement, membre_id)

    async def confirmer(self, versement_id: uuid.UUID, data: ConfirmerVersementRequest) -> VersementResponse:
        versement = await self._get(versement_id, for_update=True)
        self.auth.require(Permission.VERSEMENT_CONFIRMER, versement.organisation_id,
                          "Seule la trésorerie de l'organisation confirme un versement")
        if versement.statut != StatutVersement.EN_COURS:
            raise InvalidState(f"Versement déjà {versement.statut}")
        # The person who created it, by person key (issuer, subject) from its audit trail, never by display name.
        if not self.auth.is_global and self.auth.personne in await personnes(
                self.session, "Versement", versement.id, ("CREER",)):
            raise Forbidden("Un versement est confirmé par une autre personne que celle qui l'a créé")
        await approbations.exiger_approbation(self.session, self.auth, versement)
        tresorerie = await self._tresorerie(versement)
        if tresorerie is not None:
            # Before anything is sent: a cash box never goes below zero, a bank only within its overdraft.
            await verifier_sortie(self.session, tresorerie, versement.montant)
        before = audit.snapshot(versement, ["statut", "payout_id", "reference_externe"])
        if versement.mode == ModeVersement.MANUEL:
            if not data.reference_externe:
                raise RegleMetier("referenceExterne est obligatoire pour confirmer un versement manuel")
            versement.reference_externe = data.reference_externe
            versement.statut = StatutVersement.REUSSI
            versement.date_execution = datetime.now(UTC)
        else:
            await self._send(versement)
        versement.confirme_par = self.auth.actor_name
        await self.session.flush()
        if versement.statut == StatutVersement.REUSSI:
            await self._book(versement, tresorerie)
        await audit.record(self.session, self.auth, action=f"VERSEMENT_{versement.statut}", module=MODULE,
                           entite_type="Versement", entite_id=versement.id, organisation_id=versement.organisation_id,
                           before=before, severite="WARNING" if versement.statut == StatutVersement.ECHOUE else "INFO",
                           after=audit.snapshot(versement, ["statut", "payout_id", "reference_externe"]))
        if versement.statut == StatutVersement.REUSSI:
            await webhooks.emettre(self.session, versement.organisation_id,
                                   webhooks.EvenementWebhook.VERSEMENT_CONFIRME, {
                                       "versementId": versement.id, "montant": versement.montant,
                                       "devise": versement.devise, "mode": versement.mode,
                                       "referenceExterne": versement.reference_externe,
                                       "dateExecution": versement.date_execution})
        return VersementResponse.model_validate(versement)

    async def _send(self, versement: Versement) -> None:
        remote = await envoyer_payout(self.session, self.settings, versement)
        versement.payout_id = str(remote.get("id")) or versement.payout_id
        versement.statut = WAVE_STATUS.get(str(remote.get("status")), StatutVersement.EN_COURS)
        if versement.statut == StatutVersement.REUSSI:
            versement.date_execution = datetime.now(UTC)
        if versement.statut == StatutVersement.ECHOUE:
            error = remote.get("payout_error") or {}
            versement.motif_echec = f"{error.get('error_code', '')} {error.get('error_message', '')}".strip()

    async def annuler(self, versement_id: uuid.UUID, data: MotifRequest) -> VersementResponse:
        versement = await self._get(versement_id, for_update=True)
        self.auth.require(Permission.VERSEMENT_INITIER, versement.organisation_id,
                          "Seule la trésorerie de l'organisation annule un versement")
        if versement.statut != StatutVersement.EN_COURS or versement.payout_id is not None:
            raise InvalidState("Seul un versement pas encore envoyé peut être annulé")
        before = audit.snapshot(versement, ["statut"])
        await approbations.retirer_pour_versement(self.session, self.auth, versement)
        versement.statut = StatutVersement.ANNULE
        versement.motif_echec = data.motif
        await self.session.flush()
        await audit.record(self.session, self.auth, action="ANNULER_VERSEMENT", module=MODULE,
                           entite_type="Versement", entite_id=versement.id, organisation_id=versement.organisation_id,
                           before=before, after=audit.snapshot(versement, ["statut"]), severite="WARNING",
                           description=data.motif)
        return VersementResponse.model_validate(versement)
