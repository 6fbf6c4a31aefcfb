"""The member's USSD PIN: set by the member, reset by the treasury after three wrong ones (audited). Stored as a
keyed digest (ussd/empreinte.py)."""

from __future__ import annotations

import uuid
from itertools import pairwise

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.config import Settings
from unionflow.core import audit
from unionflow.core.auth import AuthContext
from unionflow.core.errors import Conflict, NotFound, RegleMetier
from unionflow.core.permissions import Permission
from unionflow.membres.repository import MembreRepository
from unionflow.models import Membre
from unionflow.models.ussd import PinUssd
from unionflow.ussd.code_sms import CodePinSmsService
from unionflow.ussd.empreinte import empreinte
from unionflow.ussd.repository import PinUssdRepository
from unionflow.ussd.schemas import PinUssdResponse

MODULE = "USSD"


def trop_simple(pin: str) -> bool:
    chiffres = [int(c) for c in pin]
    pas = {b - a for a, b in pairwise(chiffres)}
    return len(set(pin)) == 1 or pas in ({1}, {-1})


def _response(membre_id: uuid.UUID, pin: PinUssd | None) -> PinUssdResponse:
    if pin is None:
        return PinUssdResponse(membre_id=membre_id, defini=False, echecs=0, verrouille=False, verrouille_le=None)
    return PinUssdResponse(membre_id=membre_id, defini=pin.pin_hash is not None, echecs=pin.echecs,
                           verrouille=pin.verrouille, verrouille_le=pin.verrouille_le)


class PinUssdService:
    def __init__(self, session: AsyncSession, auth: AuthContext, settings: Settings) -> None:
        self.session = session
        self.auth = auth
        self.settings = settings
        self.repo = PinUssdRepository(session)

    async def _ligne(self, membre_id: uuid.UUID) -> PinUssd:
        pin = await self.repo.du_membre(membre_id, for_update=True)
        if pin is None:
            pin = PinUssd(membre_id=membre_id, echecs=0, verrouille=False)
            self.session.add(pin)
        return pin

    def _membre(self) -> uuid.UUID:
        if self.auth.membre_id is None:
            raise NotFound("Aucune fiche membre n'est liée à votre compte")
        return self.auth.membre_id

    async def etat_mien(self) -> PinUssdResponse:
        membre_id = self._membre()
        return _response(membre_id, await self.repo.du_membre(membre_id))

    async def definir(self, nouveau: str) -> PinUssdResponse:
        membre_id = self._membre()
        if trop_simple(nouveau):
            raise RegleMetier("Code PIN trop simple: ni chiffres tous identiques ni suite (1234, 4321)")
        pin = await self._ligne(membre_id)
        if pin.verrouille:
            raise Conflict("Accès USSD bloqué après 3 codes faux: seule la trésorerie peut le débloquer")
        premier = pin.pin_hash is None
        pin.pin_hash = empreinte(self.settings, "pin", membre_id, nouveau)
        pin.echecs = 0
        await self.session.flush()
        await audit.record(self.session, self.auth, action="DEFINIR" if premier else "MODIFIER", module=MODULE,
                           entite_type="PinUssd", entite_id=membre_id)
        return _response(membre_id, pin)

    async def _autoriser(self, membre_id: uuid.UUID) -> tuple[Membre, uuid.UUID | None]:
        """The member, and the first organisation of his where the caller holds the treasury's permission."""
        membre = await MembreRepository(self.session, self.auth).get(membre_id)
        if membre is None:
            raise NotFound("Membre introuvable")
        organisations = [m.organisation_id for m in await MembreRepository(self.session, self.auth)
                         .memberships(membre_id)]
        permises = [o for o in organisations if self.auth.can(Permission.USSD_PIN_REINITIALISER, o)]
        if not permises:
            self.auth.require(Permission.USSD_PIN_REINITIALISER, organisations[0] if organisations else None,
                              "Seule la trésorerie d'une organisation du membre réinitialise son code PIN USSD")
        return membre, permises[0] if permises else None

    async def envoyer_code(self, membre_id: uuid.UUID) -> PinUssdResponse:
        """The treasury's reset (unlocked, PIN cleared), then a one-time code by SMS to the member's own number:
        he chooses his new PIN from his phone (USSD), without coming to the desk."""
        membre, organisation_id = await self._autoriser(membre_id)
        if not membre.telephone:
            raise RegleMetier("Le membre n'a pas de numéro de téléphone: le code ne peut pas lui être envoyé")
        etat = await self.reinitialiser(membre_id, None)
        await CodePinSmsService(self.session, self.settings).envoyer(membre_id, membre.telephone, organisation_id,
                                                                self.auth)
        return etat

    async def reinitialiser(self, membre_id: uuid.UUID, nouveau: str | None) -> PinUssdResponse:
        await self._autoriser(membre_id)
        if nouveau is not None and trop_simple(nouveau):
            raise RegleMetier("Code PIN trop simple: ni chiffres tous identiques ni suite (1234, 4321)")
        pin = await self._ligne(membre_id)
        avant = {"echecs": pin.echecs, "verrouille": pin.verrouille}
        pin.pin_hash = empreinte(self.settings, "pin", membre_id, nouveau) if nouveau is not None else None
        pin.echecs = 0
        pin.verrouille = False
        pin.verrouille_le = None
        await self.session.flush()
        await audit.record(self.session, self.auth, action="REINITIALISER", module=MODULE, entite_type="PinUssd",
                           entite_id=membre_id, before=avant,
                           after={"echecs": 0, "verrouille": False, "nouveauPin": nouveau is not None},
                           severite="WARNING")
        return _response(membre_id, pin)
