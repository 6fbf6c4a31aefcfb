"""Two-way SMS: a member sends a keyword to the service's number and is answered through the outbox. A thin
adapter, like the USSD menu: the figures come from the services the member API uses (the USSD service's balance,
the receipts' public verification); only the wording is written here (textes.py)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.config import Settings
from unionflow.core.errors import NotFound
from unionflow.models import SmsEntrant
from unionflow.notifications.emission import sms_direct
from unionflow.notifications.gsm import gsm7
from unionflow.notifications.sms_repository import AccuseSmsRepository, OppositionSmsRepository
from unionflow.paiements.recus.service import RecuService
from unionflow.sms import textes
from unionflow.sms.repository import SmsEntrantRepository
from unionflow.ussd.ecrans import Profil
from unionflow.ussd.service import UssdService

MOTS_CLES = ("SOLDE", "RECU", "AIDE", "STOP", "START")
# A member of several organisations gets one SOLDE answer per organisation, at most this many SMS.
SOLDES_MAX = 3
AUTEUR = "sms"


@dataclass(frozen=True)
class MessageEntrant:
    passerelle: str
    id_passerelle: str
    expediteur: str
    destinataire: str | None
    texte: str
    # Africa's Talking's linkId of a message sent to a premium (on-demand) short code: the answers send it back.
    lien_premium: str | None = None


@dataclass(frozen=True)
class Accuse:
    """A delivery report: the gateway's id of the message, its status in the gateway's words, why it failed."""

    reference: str
    statut: str
    detail: str | None


@dataclass(frozen=True)
class Traitement:
    entrant: SmsEntrant
    reponses: int
    doublon: bool


def mot_cle(texte: str) -> tuple[str, list[str]]:
    """The keyword (case, accents and punctuation ignored: « reçu » is RECU) and the words after it."""
    mots = gsm7(texte).replace(",", " ").split()
    if not mots:
        return "INCONNU", []
    premier = "".join(c for c in mots[0].upper() if c.isalnum())
    return (premier if premier in MOTS_CLES else "INCONNU"), mots[1:]


class SmsService:
    def __init__(self, session: AsyncSession, settings: Settings) -> None:
        self.session = session
        self.settings = settings
        self.ussd = UssdService(session, settings)

    async def recevoir(self, message: MessageEntrant) -> Traitement:
        repo = SmsEntrantRepository(self.session)
        deja = await repo.deja_recu(message.passerelle, message.id_passerelle)
        if deja is not None:
            # A gateway retrying its callback gets the same outcome, and the member one answer.
            return Traitement(deja, 0, True)
        mot, suite = mot_cle(message.texte)
        profils = await self.ussd.profils(message.expediteur)
        entrant = SmsEntrant(id=uuid.uuid4(), passerelle=message.passerelle, id_passerelle=message.id_passerelle,
                             expediteur=message.expediteur, destinataire=message.destinataire,
                             texte=message.texte[:1000], mot_cle=mot)
        membres = {p.membre_id for p in profils}
        entrant.membre_id = next(iter(membres)) if len(membres) == 1 else None
        repo.add(entrant)
        await self.session.flush()
        reponses = await self._reponses(mot, suite, message.expediteur, profils)
        for texte, profil in reponses:
            sms_direct(self.session, message.expediteur, texte,
                       membre_id=profil.membre_id if profil else entrant.membre_id,
                       organisation_id=profil.organisation_id if profil else None,
                       source=("SmsEntrant", entrant.id), auteur=AUTEUR, lien_premium=message.lien_premium)
        await self.session.flush()
        return Traitement(entrant, len(reponses), False)

    async def accuser(self, accuses: list[Accuse]) -> int:
        repo = AccuseSmsRepository(self.session)
        quand = datetime.now(UTC)
        total = 0
        for accuse in accuses:
            total += await repo.accuser(accuse.reference, accuse.statut, accuse.detail, quand)
        return total

    async def _reponses(self, mot: str, suite: list[str], telephone: str,
                        profils: list[Profil]) -> list[tuple[str, Profil | None]]:
        """Each answer with the (member, organisation) it speaks for, when it shows one's figures."""
        if mot == "AIDE":
            return [(textes.AIDE, None)]
        if mot == "STOP":
            await OppositionSmsRepository(self.session).arreter(telephone)
            return [(textes.STOP, None)]
        if mot == "START":
            await OppositionSmsRepository(self.session).reprendre(telephone)
            return [(textes.START, None)]
        if mot == "INCONNU":
            return [(textes.MOT_INCONNU, None)]
        if mot == "RECU" and (profils or len(suite) >= 2):
            # With its key any receipt is checked, as on the public route; without, only the phone's member's.
            return [(await self._recu(suite, profils), None)]
        if not profils:
            return [(textes.INCONNU, None)]
        return await self._soldes(profils)

    async def _soldes(self, profils: list[Profil]) -> list[tuple[str, Profil | None]]:
        # No PIN over SMS: the answer goes back to the SIM that asked, never elsewhere; a phone shared by
        # several members would tell one member's figures to another, so it is sent to the USSD menu (PIN).
        if len({p.membre_id for p in profils}) > 1:
            return [(textes.PLUSIEURS, None)]
        reponses: list[tuple[str, Profil | None]] = []
        for profil in profils[:SOLDES_MAX]:
            situation = await self.ussd.situation(profil, self.ussd.contexte(profil, profils))
            reponses.append((textes.solde(profil.organisation, situation), profil))
        return reponses

    async def _recu(self, suite: list[str], profils: list[Profil]) -> str:
        if not suite:
            return textes.RECU_SANS_NUMERO
        recus = RecuService(self.session, None, self.settings)
        try:
            if len(suite) >= 2:
                recu = await recus.verifier(suite[0].upper(), suite[1])
            else:
                recu = await recus.verifier_du_membre(suite[0].upper(), {p.membre_id for p in profils})
        except NotFound:
            return textes.RECU_INTROUVABLE
        return textes.verification(recu.numero_recu, recu.valide, recu.statut, recu.montant, recu.date_paiement,
                                   recu.organisation)
