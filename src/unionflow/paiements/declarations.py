"""Money a member declares is not money received (docs/adhesions-cotisations.md "Paiement déclaré").

``PUT /api/cotisations/{id}/payer`` and ``POST /api/adhesions/{id}/paiement`` called by someone without
``PAIEMENT_ENREGISTRER`` for the organisation (a member paying his own dues or fee) never validate a payment:
- WAVE: a Wave Checkout session is opened; the money is credited only when Wave confirms it
  (paiements/checkout_service.py);
- any other method: a pending payment (EN_ATTENTE, no Wave session) reserves the target until the treasury
  confirms it (``confirmer`` → the settlement workflow, receipt, accounting) or rejects it (``rejeter``).
Nothing moves on the dues or the adhesion, no receipt exists and the member's account is not "à jour" meanwhile.
"""

from __future__ import annotations

import uuid
from decimal import Decimal

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.config import Settings
from unionflow.core import audit
from unionflow.core.auth import AuthContext
from unionflow.core.errors import Conflict, InvalidState, NotFound, RegleMetier
from unionflow.core.permissions import Permission
from unionflow.models import Adhesion, Cotisation, Paiement
from unionflow.models.adhesion import StatutAdhesion
from unionflow.models.cotisation import StatutCotisation
from unionflow.models.paiement import MethodePaiement, StatutPaiement
from unionflow.notifications import workflow as notices
from unionflow.paiements.checkout_service import WaveCheckoutService
from unionflow.paiements.encaissement.workflow import Cible, EncaissementService
from unionflow.paiements.methodes import erreur_reference
from unionflow.paiements.repository import PaiementRepository
from unionflow.paiements.schemas import (
    ConfirmationPaiementRequest,
    DeclarationPaiementResponse,
    MotifRequest,
    PaiementResponse,
)
from unionflow.paiements.service import PaiementService
from unionflow.tresoreries.service import tresorerie_d_entree
from unionflow.wave.repository import WaveCheckoutRepository

MODULE = "PAIEMENTS"
CENT = Decimal("0.01")


class DeclarationService:
    def __init__(self, session: AsyncSession, auth: AuthContext, settings: Settings | None = None) -> None:
        self.session = session
        self.auth = auth
        self.settings = settings
        self.repo = PaiementRepository(session, auth)

    async def declarer(self, target: Cotisation | Adhesion, montant: Decimal, methode: MethodePaiement,
                       reference: str | None) -> DeclarationPaiementResponse:
        """The member's own payment of ``target`` (already loaded through its scoped repository)."""
        if target.membre_id != self.auth.membre_id:
            # Visible (staff of the organisation) but neither his own nor within his permissions.
            self.auth.require(Permission.PAIEMENT_ENREGISTRER, target.organisation_id,
                              "Seule la trésorerie de l'organisation enregistre le paiement d'un autre membre")
        is_cotisation = isinstance(target, Cotisation)
        cible = Cible(cotisation_id=target.id if is_cotisation else None,
                      adhesion_id=None if is_cotisation else target.id, montant=montant)
        if methode is MethodePaiement.WAVE:
            assert self.settings is not None
            checkout = await WaveCheckoutService(self.session, self.auth, self.settings).ouvrir(
                target.membre_id, target.organisation_id, [cible])
            return DeclarationPaiementResponse(
                paiement_id=checkout.paiement_id, reference_declaration=checkout.numero_recu,
                statut=StatutPaiement.EN_ATTENTE, montant=checkout.montant,
                devise=checkout.devise, methode=methode, wave_launch_url=checkout.wave_launch_url,
                checkout_id=checkout.checkout_id, expires_at=checkout.expires_at,
                message="Session Wave ouverte: le paiement sera pris en compte quand Wave l'aura confirmé")
        # Lock the target first so that two concurrent declarations (or a declaration and a Wave session) cannot
        # both find nothing pending.
        await self.session.refresh(target, with_for_update=True)
        await self._refuser_si_reservee(target, is_cotisation)
        paiement = await EncaissementService(self.session, self.auth).preparer(
            membre_id=target.membre_id, organisation_id=target.organisation_id, methode=methode.value,
            cibles=[cible], devise=target.devise,
            commentaire=f"Paiement déclaré par le membre pour {target.numero_reference}"
                        + (f" (référence {reference})" if reference else ""))
        paiement.reference_externe = reference
        await audit.record(self.session, self.auth, action="DECLARER", module=MODULE, entite_type="Paiement",
                           entite_id=paiement.id, organisation_id=paiement.organisation_id,
                           after=audit.snapshot(paiement),
                           description=f"Paiement de {montant} {paiement.devise} déclaré pour "
                                       f"{target.numero_reference}, en attente de confirmation")
        return DeclarationPaiementResponse(
            paiement_id=paiement.id, reference_declaration=paiement.reference_declaration, statut=paiement.statut,
            montant=paiement.montant.quantize(CENT),
            devise=paiement.devise,
            methode=paiement.methode,
            message="Paiement déclaré: il sera pris en compte après confirmation par la trésorerie")

    async def _refuser_si_reservee(self, target: Cotisation | Adhesion, is_cotisation: bool) -> None:
        """409 while another declaration or an open Wave session reserves the target: an expired Wave
        session is closed on the way when the settings reach Wave, else it blocks until closed."""
        cotisations, adhesions = ([target.id], []) if is_cotisation else ([], [target.id])
        if self.settings is not None:
            await WaveCheckoutService(self.session, self.auth, self.settings).refuser_si_reservees(
                target.membre_id, cotisations, adhesions, declaration=True)
            return
        pending = await self.repo.reservations(target.membre_id, cotisations, adhesions)
        if pending:
            raise Conflict(f"Un paiement ({pending[0].reference}) est déjà en attente pour "
                           f"{target.numero_reference}: attendez son issue", extra={"paiementId":
                                                                                   str(pending[0].paiement_id)})

    async def _declaration(self, paiement_id: uuid.UUID) -> Paiement:
        paiement = await self.repo.get(paiement_id)
        if paiement is None:
            raise NotFound("Paiement introuvable")
        self.auth.require(Permission.PAIEMENT_ENREGISTRER, paiement.organisation_id,
                          "Seule la trésorerie de l'organisation confirme ou rejette un paiement déclaré")
        if paiement.statut != StatutPaiement.EN_ATTENTE:
            raise InvalidState(f"Seul un paiement en attente se confirme ou se rejette (statut: {paiement.statut})")
        if await WaveCheckoutRepository(self.session).by_paiements([paiement.id]):
            raise InvalidState("Un paiement Wave est confirmé par Wave seulement: utilisez /wave/synchroniser")
        return paiement

    async def confirmer(self, paiement_id: uuid.UUID, data: ConfirmationPaiementRequest) -> PaiementResponse:
        paiement = await self._declaration(paiement_id)
        for target in await self.repo.reserved_targets(paiement.id):
            closed = (target.statut == StatutCotisation.ANNULEE if isinstance(target, Cotisation)
                      else target.statut != StatutAdhesion.APPROUVEE and target.statut != StatutAdhesion.PAYEE)
            if closed:
                raise InvalidState(f"{target.numero_reference} n'est plus payable (statut: {target.statut}): "
                                   f"rejetez la déclaration")
        await self._corriger(paiement, data)
        paiement, applied = await EncaissementService(self.session, self.auth).confirmer(
            paiement.id, reference_externe=data.reference_externe, date_paiement=data.date_paiement)
        if not applied:
            raise InvalidState(f"Le paiement n'est plus en attente (statut: {paiement.statut})")
        await audit.record(self.session, self.auth, action="CONFIRMER", module=MODULE, entite_type="Paiement",
                           entite_id=paiement.id, organisation_id=paiement.organisation_id,
                           before={"statut": StatutPaiement.EN_ATTENTE.value}, after={"statut": paiement.statut},
                           description=f"Paiement déclaré {paiement.reference_declaration or ''} confirmé par la "
                                       f"trésorerie: reçu {paiement.numero_recu}")
        return await PaiementService(self.session, self.auth).response(paiement)

    async def _corriger(self, paiement: Paiement, data: ConfirmationPaiementRequest) -> None:
        """The method and treasury the treasurer found, when they differ from the declaration: set before the
        money is booked, so the entry debits the right treasury (a Wave transfer declared « Autre » is not cash).
        The declared method is kept (``methode_declaree``, printed on the receipt); the change is audited."""
        methode = data.methode.value if data.methode is not None else paiement.methode
        if methode != paiement.methode:
            reference = data.reference_externe or paiement.reference_externe
            if (erreur := erreur_reference(methode, reference)) is not None:
                raise RegleMetier(erreur)
        if data.tresorerie_id is not None:
            # Active, of the payment's organisation (404 otherwise), of the method's type (400 otherwise).
            await tresorerie_d_entree(self.session, paiement.organisation_id, data.tresorerie_id, methode)
        tresorerie_id = data.tresorerie_id or paiement.tresorerie_id
        avant = {"methode": paiement.methode, "tresorerieId": _texte(paiement.tresorerie_id)}
        apres = {"methode": methode, "tresorerieId": _texte(tresorerie_id)}
        if avant == apres:
            return
        # Set on any correction (method unchanged when only the treasury was corrected): the receipt says so.
        paiement.methode_declaree = paiement.methode_declaree or paiement.methode
        paiement.methode = methode
        paiement.tresorerie_id = tresorerie_id
        await self.session.flush()
        await audit.record(self.session, self.auth, action="CORRIGER", module=MODULE, entite_type="Paiement",
                           entite_id=paiement.id, organisation_id=paiement.organisation_id, before=avant, after=apres,
                           description=f"Déclaration {paiement.reference_declaration or ''} corrigée à la "
                                       f"confirmation: méthode {avant['methode']} → {methode}"
                                       + (", trésorerie choisie" if data.tresorerie_id is not None else ""))

    async def rejeter(self, paiement_id: uuid.UUID, data: MotifRequest) -> PaiementResponse:
        """Nothing was received: no receipt number is used (the declaration keeps its DEC- reference) and the
        receipt download answers a problem (paiements/recus/service.py)."""
        paiement = await self._declaration(paiement_id)
        paiement = await EncaissementService(self.session, self.auth).clore(paiement.id, StatutPaiement.ANNULE)
        paiement.commentaire = "\n".join(filter(None, [paiement.commentaire, f"Rejeté: {data.motif}"]))
        await self.session.flush()
        await audit.record(self.session, self.auth, action="REJETER", module=MODULE, entite_type="Paiement",
                           entite_id=paiement.id, organisation_id=paiement.organisation_id,
                           before={"statut": StatutPaiement.EN_ATTENTE.value}, after={"statut": paiement.statut},
                           description=f"Paiement déclaré {paiement.numero_recu} rejeté (aucun reçu émis): "
                                       f"{data.motif}")
        await notices.declaration_rejetee(self.session, paiement, data.motif, self.auth.actor_name)
        return await PaiementService(self.session, self.auth).response(paiement)


def _texte(valeur: uuid.UUID | None) -> str | None:
    return str(valeur) if valeur is not None else None
