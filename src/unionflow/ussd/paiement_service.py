"""« Payer une cotisation » on USSD: the member's unpaid dues of the chosen organisation, then one dues with what it
still owes and its payment code, then a Wave payment link sent to his phone by SMS (through the outbox). The link is
the checkout the public payment page opens for that code (paiements/code_paiement): the same open session is given
again when he asks twice, and the money is applied by the signed webhook like any checkout."""

from __future__ import annotations

from decimal import Decimal

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.compte.service import CompteService
from unionflow.config import Settings
from unionflow.core.auth import AuthContext
from unionflow.core.errors import Conflict, UnionFlowError, UpstreamError, UpstreamUnavailable
from unionflow.core.passe_lecture import ecriture
from unionflow.cotisations.repository import CotisationRepository
from unionflow.cotisations.service import today_utc
from unionflow.models import Cotisation
from unionflow.notifications.emission import Emetteur
from unionflow.notifications.schemas import TypeNotification
from unionflow.paiements.code_paiement.service import CodePaiementService, reste
from unionflow.ussd import ecrans
from unionflow.ussd.ecrans import Profil


def libelle(cotisation: Cotisation) -> str:
    if cotisation.mois:
        return f"{cotisation.mois:02d}/{cotisation.annee}"
    return cotisation.libelle or f"{cotisation.type_cotisation.lower()} {cotisation.annee}"


class PaiementUssd:
    def __init__(self, session: AsyncSession, settings: Settings, telephone: str) -> None:
        self.session = session
        self.settings = settings
        self.telephone = telephone

    async def _cotisations(self, profil: Profil, auth: AuthContext) -> list[Cotisation]:
        impayees = await CotisationRepository(self.session, auth, today_utc()).unpaid_of_member(profil.membre_id)
        return [c for c in impayees if c.organisation_id == profil.organisation_id and c.code_paiement
                and reste(c) > 0][:ecrans.COTISATIONS_MAX]

    async def repondre(self, profil: Profil, auth: AuthContext, suite: list[str]) -> str:
        cotisations = await self._cotisations(profil, auth)
        if not suite:
            _, soldes = await CompteService(self.session, auth).soldes(profil.organisation_id)
            doit = soldes.cotisations.montant_restant + soldes.frais_adhesion_restants
            if not cotisations:
                return ecrans.payer(doit)
            return ecrans.a_payer(doit, [(libelle(c), reste(c)) for c in cotisations])
        if not suite[0].isdigit() or not 1 <= int(suite[0]) <= len(cotisations):
            return ecrans.CHOIX_INVALIDE
        choisie = cotisations[int(suite[0]) - 1]
        code = choisie.code_paiement
        assert code is not None
        if len(suite) == 1:
            return ecrans.cotisation(libelle(choisie), reste(choisie), code)
        if suite[1] != "1":
            return ecrans.CHOIX_INVALIDE
        return await self._envoyer_lien(profil, code)

    async def _envoyer_lien(self, profil: Profil, code: str) -> str:
        ecriture(self.session)  # before the checkout at Wave and the SMS: never from a read pass
        try:
            # In a savepoint: a refused or unreachable checkout leaves nothing behind in the callback's transaction.
            async with self.session.begin_nested():
                ouverte = await CodePaiementService(self.session, self.settings).payer_wave(code, None)
        except Conflict:
            return ecrans.PAIEMENT_EN_COURS
        except (UpstreamError, UpstreamUnavailable):
            return ecrans.wave_indisponible(code)
        except UnionFlowError:
            return ecrans.payer(Decimal(0))
        await Emetteur(self.session, "ussd").emettre_adresse(
            self.telephone, TypeNotification.INFORMATION.value, "Lien de paiement Wave",
            ecrans.sms_lien(ouverte.montant, code, ouverte.wave_launch_url), organisation_id=profil.organisation_id,
            membre_id=profil.membre_id)
        return ecrans.lien_envoye(code)
