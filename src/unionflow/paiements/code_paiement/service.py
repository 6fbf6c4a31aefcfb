"""Paying a dues by its payment code (core/code_paiement.py), with no account: a relative abroad types the code,
sees the member's initials and what is owed, and opens a Wave checkout whose client_reference is the code. The
checkout's webhook applies the money to that dues like any checkout (paiements/checkout_service.py) and tells the
payer's phone. Nothing else about the member is shown."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.config import Settings
from unionflow.core import code_paiement
from unionflow.core.errors import Conflict, NotFound, RegleMetier
from unionflow.models import Cotisation
from unionflow.models.cotisation import StatutCotisation
from unionflow.paiements.checkout_service import WaveCheckoutService
from unionflow.paiements.code_paiement.schemas import CotisationParCodeResponse, PaiementParCodeResponse
from unionflow.paiements.encaissement.validation_service import outstanding
from unionflow.paiements.encaissement.workflow import Cible
from unionflow.paiements.repository import PaiementSystemRepository
from unionflow.wave.repository import WaveCheckoutRepository

ZERO = Decimal("0")


def initiales(prenom: str | None, nom: str | None) -> str:
    """« Aminata Sow » → « A. S. »: enough for a relative to recognise, not enough to identify."""
    return " ".join(f"{mot[0].upper()}." for mot in f"{prenom or ''} {nom or ''}".split() if mot[:1].isalpha())


def reste(cotisation: Cotisation) -> Decimal:
    return ZERO if cotisation.statut == StatutCotisation.ANNULEE else max(outstanding(cotisation), ZERO)


class CodePaiementService:
    def __init__(self, session: AsyncSession, settings: Settings) -> None:
        self.session = session
        self.settings = settings

    async def _trouver(self, saisie: str) -> tuple[Cotisation, str, str]:
        code = code_paiement.lire(saisie)
        if code is None:  # a string the path admits, refused by the check digits: a rule, said in the route
            raise RegleMetier("Code de paiement invalide: vérifiez les 11 chiffres (les deux derniers sont une "
                               "clé de contrôle)")
        found = await PaiementSystemRepository(self.session).par_code_paiement(code)
        if found is None:
            raise NotFound("Aucune cotisation ne porte ce code de paiement")
        cotisation, prenom, nom, organisation = found
        return cotisation, initiales(prenom, nom), organisation

    async def consulter(self, saisie: str) -> CotisationParCodeResponse:
        cotisation, sigle, organisation = await self._trouver(saisie)
        montant = reste(cotisation)
        assert cotisation.code_paiement is not None
        return CotisationParCodeResponse(
            code_paiement=cotisation.code_paiement, initiales=sigle, organisation=organisation,
            libelle=cotisation.libelle or f"Cotisation {cotisation.type_cotisation.lower()}",
            date_echeance=cotisation.date_echeance, montant_restant=montant, devise=cotisation.devise,
            payable=montant > ZERO)

    async def payer_wave(self, saisie: str, telephone_payeur: str | None) -> PaiementParCodeResponse:
        """A Wave session for what the dues still owes. The session already opened from this page for the same
        code, still open, is given again (a reload or a second click opens no second session)."""
        cotisation, _, _ = await self._trouver(saisie)
        code = cotisation.code_paiement
        assert code is not None
        if reste(cotisation) <= ZERO:
            raise RegleMetier("Cette cotisation ne se paie plus: elle est réglée ou annulée")
        ouverte = await WaveCheckoutRepository(self.session).ouverte_par_reference(code, datetime.now(UTC))
        if ouverte is not None:
            ouverte.telephone_payeur = telephone_payeur or ouverte.telephone_payeur
            return PaiementParCodeResponse(code_paiement=code, montant=ouverte.montant, devise=ouverte.devise,
                                           wave_launch_url=ouverte.launch_url, expires_at=ouverte.when_expires)
        try:
            session = await WaveCheckoutService(self.session, None, self.settings).ouvrir(
                cotisation.membre_id, cotisation.organisation_id, [Cible(cotisation_id=cotisation.id)],
                reference_client=code, telephone_payeur=telephone_payeur)
        except Conflict as exc:
            # The member's own session or declaration: nothing about it is shown to a stranger.
            raise Conflict("Un paiement de cette cotisation est déjà en cours: réessayez plus tard") from exc
        return PaiementParCodeResponse(code_paiement=code, montant=session.montant, devise=session.devise,
                                       wave_launch_url=session.wave_launch_url, expires_at=session.expires_at)
