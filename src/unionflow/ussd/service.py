"""The USSD menu: a thin adapter over the member's existing operations. The gateway sends every input
of the session so far (``text``, joined by ``*``); each answer is computed from scratch: phone → who (chosen when
several) → PIN → menu → screen. Figures come from the services the API uses (compte, recus, demandes_aide,
evenements) called with the member's own context; only the wording is written here (ecrans.py)."""

from __future__ import annotations

import re
import uuid
from datetime import UTC, datetime

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.compte.service import CompteService
from unionflow.config import Settings
from unionflow.core import audit
from unionflow.core.auth import AuthContext
from unionflow.core.errors import NotFound
from unionflow.core.pagination import PageParams
from unionflow.core.passe_lecture import ecriture
from unionflow.core.roles import Role
from unionflow.demandes_aide.repository import DemandeFilters
from unionflow.demandes_aide.service import DemandeAideService
from unionflow.evenements.repository import EvenementFilters
from unionflow.evenements.service import EvenementService
from unionflow.membres.repository import MembreRepository
from unionflow.models import Membre
from unionflow.models.ussd import ECHECS_MAX
from unionflow.paiements.recus.service import RecuService
from unionflow.ussd import ecrans
from unionflow.ussd.code_sms import CodePinSmsService
from unionflow.ussd.ecrans import Profil, Situation
from unionflow.ussd.empreinte import avant_les_cles, controler, empreinte
from unionflow.ussd.paiement_service import PaiementUssd
from unionflow.ussd.pin_service import trop_simple
from unionflow.ussd.repository import PinUssdRepository
from unionflow.ussd.schemas import PIN_PATTERN

MODULE = "USSD"


def membre_context(profil: Profil, organisations: set[uuid.UUID]) -> AuthContext:
    """The member as he would be with his own login, limited to the personal MEMBRE role: a treasurer's phone
    shows his own account on USSD, never his organisation's."""
    membre = frozenset({Role.MEMBRE.value})
    return AuthContext(sub=f"ussd:{profil.membre_id}", email=None, username=None, realm_roles=membre,
                       roles=membre, membre_id=profil.membre_id,
                       memberships={org: membre for org in organisations},
                       active_organisation_id=profil.organisation_id)


class UssdService:
    def __init__(self, session: AsyncSession, settings: Settings) -> None:
        self.session = session
        self.settings = settings
        self.pins = PinUssdRepository(session)
        self._membres: list[Membre] = []

    async def profils(self, telephone: str) -> list[Profil]:
        """Every (member, organisation) this phone speaks for (active members, active memberships)."""
        rows = await MembreRepository(self.session, None).profils_telephone(telephone)
        # Held for the request: the session's identity map keeps its objects weakly, and the member's account
        # (compte/service.py) reads his record again by key; held, that read is served without a statement.
        self._membres = [m for m, _, _ in rows]
        return [Profil(m.id, m.prenom, m.nom, org_id, nom) for m, org_id, nom in rows]

    @staticmethod
    def contexte(profil: Profil, profils: list[Profil]) -> AuthContext:
        return membre_context(profil, {p.organisation_id for p in profils if p.membre_id == profil.membre_id})

    async def situation(self, profil: Profil, auth: AuthContext) -> Situation:
        """The member's balance in the chosen organisation, from the member API's own computation (USSD screen 1,
        SMS keyword SOLDE)."""
        _, soldes = await CompteService(self.session, auth).soldes(profil.organisation_id)
        return Situation(soldes.cotisations.montant_restant + soldes.frais_adhesion_restants,
                         soldes.cotisations.nombre_en_retard, soldes.cotisations.prochaine_echeance, soldes.credit,
                         soldes.solde)

    async def repondre(self, telephone: str, texte: str) -> str:
        profils = await self.profils(telephone)
        if not profils:
            return ecrans.INCONNU
        saisies = texte.split("*") if texte else []
        if len(profils) > 1:
            if not saisies:
                return ecrans.choix(profils)
            numero = saisies.pop(0)
            if not numero.isdigit() or not 1 <= int(numero) <= min(len(profils), 5):
                return ecrans.CHOIX_INVALIDE
            profil = profils[int(numero) - 1]
        else:
            profil = profils[0]
        refus = await self._pin(profil, saisies, telephone, len({p.membre_id for p in profils}) > 1)
        if refus is not None:
            return refus
        auth = self.contexte(profil, profils)
        if not saisies:
            return ecrans.MENU
        if saisies[0] == "2":
            return await PaiementUssd(self.session, self.settings, telephone).repondre(profil, auth, saisies[1:])
        return await self._rubrique(profil, auth, saisies.pop(0), saisies)

    async def _pin(self, profil: Profil, saisies: list[str], telephone: str, partage: bool) -> str | None:
        """None once the PIN typed is right (consumed from ``saisies``); otherwise the screen to answer. Checked at
        every step (the gateway repeats it in ``text``): a keyed digest, microseconds (ussd/empreinte.py)."""
        pin = await self.pins.du_membre(profil.membre_id)
        if pin is not None and pin.verrouille:
            return ecrans.VERROUILLE
        if pin is None or pin.pin_hash is None:
            # A code sent to a phone several members share would let one set another's PIN.
            return ecrans.SANS_PIN_PARTAGE if partage else await self._par_code(profil, saisies, telephone)
        if not saisies:
            return ecrans.DEMANDE_PIN
        saisi = saisies.pop(0)
        if avant_les_cles(pin.pin_hash):
            ecriture(self.session)  # checked once, in the write transaction (ussd/empreinte.py)
        controle = await controler(self.settings, "pin", profil.membre_id, pin.pin_hash, saisi)
        if not controle.juste:
            return await self._echec(profil.membre_id)
        if pin.echecs:
            ecriture(self.session)
            pin.echecs = 0
        if controle.a_renouveler:
            await self._renouveler(profil.membre_id, pin.pin_hash, saisi)
        return None

    async def _renouveler(self, membre_id: uuid.UUID, verifie: str, saisi: str) -> None:
        """An argon2 PIN (or one under a former key), right: re-stored as a keyed digest under the current key.
        Only if the row still holds what was verified: a treasury reset committed meanwhile wins. Not audited: the
        PIN does not change, only how it is kept."""
        ecriture(self.session)
        pin = await self.pins.du_membre(membre_id, for_update=True)
        if pin is not None and pin.pin_hash == verifie:
            pin.pin_hash = empreinte(self.settings, "pin", membre_id, saisi)

    async def _par_code(self, profil: Profil, saisies: list[str], telephone: str) -> str:
        """No PIN yet: a one-time code by SMS, then the new PIN twice (code*pin*pin, each step from scratch)."""
        codes = CodePinSmsService(self.session, self.settings)
        envoyer = saisies[:1] == ["1"] if await codes.en_cours(profil.membre_id) is None else saisies[:1] == ["0"]
        if envoyer:
            await codes.envoyer(profil.membre_id, telephone, profil.organisation_id, None)
            return ecrans.CODE_ENVOYE
        if await codes.en_cours(profil.membre_id) is None:
            return ecrans.CHOIX_INVALIDE if saisies else ecrans.SANS_PIN_CODE
        if not saisies:
            return ecrans.DEMANDE_CODE
        verification = await codes.verifier(profil.membre_id, saisies[0])
        if not verification.juste:
            return ecrans.code_faux(verification.restants)
        if len(saisies) == 1:
            return ecrans.NOUVEAU_PIN
        nouveau = saisies[1]
        if not re.fullmatch(PIN_PATTERN, nouveau) or trop_simple(nouveau):
            return ecrans.PIN_REFUSE
        if len(saisies) == 2:
            return ecrans.CONFIRMER_PIN
        if saisies[2] != nouveau:
            return ecrans.PIN_DIFFERENT
        await codes.definir_pin(profil.membre_id, saisies[0], nouveau)
        return ecrans.PIN_CREE

    async def _echec(self, membre_id: uuid.UUID) -> str:
        ecriture(self.session)
        pin = await self.pins.du_membre(membre_id, for_update=True)
        assert pin is not None  # read just before in the same transaction
        pin.echecs += 1
        if pin.echecs >= ECHECS_MAX and not pin.verrouille:
            pin.verrouille = True
            pin.verrouille_le = datetime.now(UTC)
            await audit.record(self.session, None, action="VERROUILLER", module=MODULE, entite_type="PinUssd",
                               entite_id=membre_id, after={"echecs": pin.echecs, "verrouille": True},
                               severite="WARNING")
        return ecrans.pin_faux(ECHECS_MAX - pin.echecs)

    async def _rubrique(self, profil: Profil, auth: AuthContext, choix: str, suite: list[str]) -> str:
        if choix == "1":
            return ecrans.solde(profil.organisation, await self.situation(profil, auth))
        if choix == "3":
            derniers = await CompteService(self.session, auth).derniers_paiements(profil.organisation_id, 10)
            return ecrans.recus([(p.numero_recu, p.montant, p.date_paiement or p.created_at) for p in derniers])
        if choix == "4":
            return await self._verifier(suite)
        if choix == "5":
            demandes, _ = await DemandeAideService(self.session, auth).lister(DemandeFilters(only_mine=True),
                                                                              PageParams(0, 1))
            if not demandes:
                return ecrans.SANS_DEMANDE
            d = demandes[0]
            return ecrans.aide(d.numero_reference, d.titre, d.statut, d.montant_demande, d.montant_accorde)
        if choix == "6":
            return await self._evenement(profil, auth)
        return ecrans.CHOIX_INVALIDE

    async def _verifier(self, suite: list[str]) -> str:
        if not suite:
            return ecrans.NUMERO_RECU
        if len(suite) < 2:
            return ecrans.CLE_RECU
        try:
            recu = await RecuService(self.session, None, self.settings).verifier(suite[0].strip(), suite[1].strip())
        except NotFound:
            return ecrans.RECU_INTROUVABLE
        return ecrans.verification(recu.numero_recu, recu.valide, recu.statut, recu.montant, recu.date_paiement,
                                   recu.organisation)

    async def _evenement(self, profil: Profil, auth: AuthContext) -> str:
        page = await EvenementService(self.session, auth).lister(EvenementFilters(upcoming=True), PageParams(0, 20))
        # The member's own organisation first; a public event of another one is not "his" next event.
        siens = [e for e in page.content if e.organisation_id == profil.organisation_id]
        if not siens:
            return ecrans.SANS_EVENEMENT
        e = siens[0]
        return ecrans.evenement(e.titre, e.date_debut, e.lieu)

