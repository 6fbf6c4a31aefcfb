"""A USSD PIN set with a one-time code sent by SMS: asked for from the USSD menu or by the treasury, kept as a
keyed digest (ussd/empreinte.py), valid ``ussd_code_sms_ttl_seconds``, void after three wrong tries, audited. The
SMS leaves through the outbox; its body (the code) is removed once the outbox is done with it
(notifications/sources.py)."""

from __future__ import annotations

import secrets
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.config import Settings
from unionflow.core import audit
from unionflow.core.auth import AuthContext
from unionflow.core.passe_lecture import ecriture
from unionflow.models.sms import ESSAIS_CODE_MAX, CodePinSms
from unionflow.models.ussd import PinUssd
from unionflow.notifications.emission import sms_direct
from unionflow.notifications.sources import CODE_PIN_SMS
from unionflow.ussd.ecrans import sms_code_pin
from unionflow.ussd.empreinte import controler, empreinte
from unionflow.ussd.repository import CodePinSmsRepository, PinUssdRepository

MODULE = "USSD"


@dataclass(frozen=True)
class Verification:
    """A code typed: right, or wrong with the tries left (0: the code is void now)."""

    juste: bool
    restants: int


class CodePinSmsService:
    def __init__(self, session: AsyncSession, settings: Settings) -> None:
        self.session = session
        self.settings = settings
        self.codes = CodePinSmsRepository(session)

    async def en_cours(self, membre_id: uuid.UUID) -> CodePinSms | None:
        """The member's code still valid now, if any."""
        code = await self.codes.du_membre(membre_id)
        return code if code is not None and code.expire_le > datetime.now(UTC) else None

    async def envoyer(self, membre_id: uuid.UUID, telephone: str, organisation_id: uuid.UUID | None,
                      auth: AuthContext | None) -> None:
        """A new code (replacing any earlier one) sent by SMS to ``telephone``, the member's own number."""
        ecriture(self.session)
        code = f"{secrets.randbelow(10**6):06d}"
        ttl = self.settings.ussd_code_sms_ttl_seconds
        ligne = await self.codes.du_membre(membre_id, for_update=True)
        if ligne is None:
            ligne = CodePinSms(id=uuid.uuid4(), membre_id=membre_id)
            self.codes.add(ligne)
        ligne.code_hash = empreinte(self.settings, "code-sms", membre_id, code)
        ligne.expire_le = datetime.now(UTC) + timedelta(seconds=ttl)
        ligne.essais = 0
        ligne.demande_par = auth.actor_name if auth is not None else "ussd"
        await self.session.flush()
        sms_direct(self.session, telephone, sms_code_pin(code, max(1, ttl // 60)), membre_id=membre_id,
                   organisation_id=organisation_id, source=(CODE_PIN_SMS, ligne.id), auteur=ligne.demande_par)
        await audit.record(self.session, auth, action="ENVOYER_CODE", module=MODULE, entite_type="PinUssd",
                           entite_id=membre_id, organisation_id=organisation_id,
                           description=f"Code à usage unique envoyé par SMS au {telephone}",
                           after={"expireLe": ligne.expire_le, "demandePar": ligne.demande_par})

    async def verifier(self, membre_id: uuid.UUID, saisi: str) -> Verification:
        """Checks a typed code without using it up; a wrong one counts, the third voids the code (audited)."""
        ligne = await self.en_cours(membre_id)
        if ligne is None:
            return Verification(False, 0)
        if (await controler(self.settings, "code-sms", membre_id, ligne.code_hash, saisi)).juste:
            return Verification(True, ESSAIS_CODE_MAX - ligne.essais)
        ecriture(self.session)
        ligne = await self.codes.du_membre(membre_id, for_update=True)
        assert ligne is not None  # read just before in the same transaction
        ligne.essais += 1
        restants = ESSAIS_CODE_MAX - ligne.essais
        if restants <= 0:
            await self.codes.supprimer(ligne)
            await audit.record(self.session, None, action="ANNULER_CODE", module=MODULE, entite_type="PinUssd",
                               entite_id=membre_id, description="Code SMS annulé après 3 essais faux",
                               severite="WARNING")
        return Verification(False, max(restants, 0))

    async def definir_pin(self, membre_id: uuid.UUID, saisi: str, pin: str) -> bool:
        """Sets the PIN if ``saisi`` is the member's valid code, which is then used up; audited DEFINIR."""
        if not (await self.verifier(membre_id, saisi)).juste:
            return False
        ecriture(self.session)
        ligne = await self.codes.du_membre(membre_id, for_update=True)
        assert ligne is not None
        await self.codes.supprimer(ligne)
        pins = PinUssdRepository(self.session)
        ligne_pin = await pins.du_membre(membre_id, for_update=True)
        if ligne_pin is None:
            ligne_pin = PinUssd(membre_id=membre_id, echecs=0, verrouille=False)
            self.session.add(ligne_pin)
        ligne_pin.pin_hash = empreinte(self.settings, "pin", membre_id, pin)
        ligne_pin.echecs = 0
        await self.session.flush()
        await audit.record(self.session, None, action="DEFINIR", module=MODULE, entite_type="PinUssd",
                           entite_id=membre_id, description="Code PIN USSD défini avec un code reçu par SMS")
        return True
