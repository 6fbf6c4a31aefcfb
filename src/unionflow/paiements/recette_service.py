"""Money received at the counter for no dues nor adhesion: a donation, an event fee. One receipt in the
organisation's series and one entry crediting the kind's income account (comptabilite/produits/comptes.py); undone
through the four-eyes cancellations like any payment (annulations/)."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.comptabilite.produits.comptes import COMPTE_FONDS_AFFECTES
from unionflow.core.auth import AuthContext
from unionflow.core.errors import NotFound, RegleMetier
from unionflow.core.montants import format_montant
from unionflow.core.permissions import Permission
from unionflow.core.visibility import staff_sees
from unionflow.dons.service import inscrire_paiement, verifier_donateur
from unionflow.evenements.repository import EvenementRepository
from unionflow.models import Evenement, Paiement
from unionflow.models.evenement import StatutEvenement
from unionflow.models.recette import NatureRecette
from unionflow.organisations.repository import OrganisationRepository
from unionflow.paiements.encaissement.workflow import EncaissementService
from unionflow.paiements.recus.pdf import LigneRecu
from unionflow.paiements.repository import PaiementRepository
from unionflow.paiements.schemas import CreateRecetteRequest, NatureRecetteGuichet, PaiementResponse
from unionflow.paiements.service import PaiementService

ZERO = Decimal("0")


def _verifier_participation(evenement: Evenement, data: CreateRecetteRequest) -> None:
    """The event's price is what is owed: one participation or several, never a part of one."""
    if evenement.organisation_id != data.organisation_id:
        raise RegleMetier(f"L'événement « {evenement.titre} » n'est pas organisé par cette organisation")
    if evenement.statut == StatutEvenement.ANNULE:
        raise RegleMetier(f"L'événement « {evenement.titre} » est annulé: aucune participation à encaisser")
    prix = evenement.prix or ZERO
    if prix <= ZERO:
        raise RegleMetier(f"L'événement « {evenement.titre} » est gratuit: aucune participation à encaisser")
    if evenement.devise != data.devise:
        raise RegleMetier(f"Devise {data.devise} différente de celle de l'événement ({evenement.devise})")
    if data.montant % prix != ZERO:
        raise RegleMetier(f"Le montant ({format_montant(data.montant, data.devise)}) doit être le prix de "
                          f"l'événement ({format_montant(prix, evenement.devise)}) ou un multiple de ce prix")


class RecetteService:
    def __init__(self, session: AsyncSession, auth: AuthContext) -> None:
        self.session = session
        self.auth = auth

    async def encaisser(self, data: CreateRecetteRequest) -> PaiementResponse:
        """A donation or an event fee entered by the organisation's treasury."""
        if not staff_sees(self.auth, data.organisation_id) or not await OrganisationRepository(
                self.session, self.auth).exists(data.organisation_id):
            raise NotFound("Organisation introuvable")
        self.auth.require(Permission.PAIEMENT_ENREGISTRER, data.organisation_id,
                          "Seule la trésorerie de l'organisation enregistre une recette")
        if await PaiementRepository(self.session, self.auth).membre(data.membre_id) is None:
            raise NotFound("Membre introuvable")
        if data.date_paiement is not None and data.date_paiement > datetime.now(UTC):
            raise RegleMetier("datePaiement ne peut pas être dans le futur")
        if data.evenement_id is not None:
            evenement = await EvenementRepository(self.session, self.auth).get(data.evenement_id)
            if evenement is None:
                raise NotFound("Événement introuvable")
            _verifier_participation(evenement, data)
        if data.donateur is not None:
            await verifier_donateur(self.session, data.organisation_id, data.donateur, data.montant)
        # A gift for a purpose is the fund's, not income (SYCEBNL, docs/conformite.md S9): credited to 165.
        affectee = data.nature is NatureRecetteGuichet.DON and bool((data.affectation or "").strip())
        paiement = await EncaissementService(self.session, self.auth).recevoir(
            membre_id=data.membre_id, organisation_id=data.organisation_id, montant=data.montant,
            methode=data.methode, nature=data.nature.value, evenement_id=data.evenement_id, devise=data.devise,
            reference_externe=data.reference_externe, date_paiement=data.date_paiement, commentaire=data.commentaire,
            compte_credit=COMPTE_FONDS_AFFECTES if affectee else None)
        if data.nature is NatureRecetteGuichet.DON:
            # Every donation is in the register, written with its validated receipt in this transaction.
            await inscrire_paiement(self.session, self.auth, paiement, data.donateur, data.affectation)
        return await PaiementService(self.session, self.auth).response(paiement)


async def ligne_recette(session: AsyncSession, auth: AuthContext | None, paiement: Paiement) -> LigneRecu:
    """The receipt's line of a donation ("Don") or an event fee ("Participation : <événement>")."""
    if paiement.nature != NatureRecette.EVENEMENT:
        return LigneRecu(reference=paiement.numero_recu, libelle="Don", montant=paiement.montant, reste_du=None)
    evenement = (await EvenementRepository(session, auth).get(paiement.evenement_id)
                 if paiement.evenement_id is not None else None)
    titre = evenement.titre if evenement is not None else "événement"
    return LigneRecu(reference=paiement.numero_recu, libelle=f"Participation : {titre}", montant=paiement.montant,
                     reste_du=None)
