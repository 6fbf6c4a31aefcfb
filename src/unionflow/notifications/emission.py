"""Writing notifications: one outbox row per recipient and channel, preferences honoured. Used by the
Notifications area and by the other areas' services (dues reminders, event notices). Never commits."""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.donnees_personnelles.repository import OppositionTraitementRepository
from unionflow.models import Membre, Notification, PreferenceMembre
from unionflow.models.base import utcnow
from unionflow.models.notification import OBLIGATOIRES, Canal, StatutNotification, TypeNotification
from unionflow.notifications.gsm import un_sms
from unionflow.notifications.sms_repository import OppositionSmsRepository
from unionflow.notifications.sources import synchroniser_source
from unionflow.preferences.repository import PreferenceMembreRepository

S = StatutNotification
# What a number that answered STOP no longer gets by SMS: reminders and every notice a member may refuse. The
# notices about his own money and registrations (receipts, decisions, cancellations) still reach him.
ARRETABLES = frozenset({TypeNotification.RAPPEL_COTISATION.value}) | frozenset(
    t.value for t in TypeNotification if t not in OBLIGATOIRES)
ARRET_SMS = "Numéro désinscrit des rappels par SMS (STOP)"
_ENVOIS = frozenset({Canal.SMS, Canal.EMAIL})
# Codes of the opposable processings in the register (declared in cotisations/ and notifications/ traitements.py).
TRAITEMENT_RAPPELS = "RAPPELS_COTISATION"
TRAITEMENT_COMMUNICATIONS = "COMMUNICATIONS"
# Loi 2008-12 (opposition): the notices of a processing of the register a member may object to (its code, declared in
# cotisations/ and notifications/ traitements.py), and the channels his approved opposition stops. A dues reminder
# still reaches his own inbox instead (the dues are owed; only the SMS and e-mail sending is the opposed
# processing); information, invitations and offers stop everywhere. Notices about his money and registrations are
# not opposable.
OPPOSITIONS: dict[str, tuple[str, frozenset[Canal]]] = {
    TypeNotification.RAPPEL_COTISATION.value: (TRAITEMENT_RAPPELS, _ENVOIS),
    TypeNotification.INFORMATION.value: (TRAITEMENT_COMMUNICATIONS, frozenset(Canal)),
    TypeNotification.INVITATION_EVENEMENT.value: (TRAITEMENT_COMMUNICATIONS, frozenset(Canal)),
}


@dataclass
class BilanEmission:
    destinataires: int = 0
    refusees: int = 0
    sans_adresse: int = 0
    par_canal: Counter[str] = field(default_factory=Counter)
    notifications: list[Notification] = field(default_factory=list)


def canal_par_defaut(membre: Membre) -> Canal:
    if membre.email:
        return Canal.EMAIL
    return Canal.SMS if membre.telephone else Canal.IN_APP


def choisir_canaux(membre: Membre, pref: PreferenceMembre | None, type_notification: str,
                   demandes: Sequence[Canal] | None) -> list[Canal]:
    """Channels for one member; an empty list means the member refused this kind of notification."""
    obligatoire = type_notification in OBLIGATOIRES
    if pref is not None and pref.refus_non_obligatoires and not obligatoire:
        return []
    choisis = (pref.canaux_par_type or {}).get(type_notification) if pref is not None else None
    if choisis is not None:
        if choisis:
            # The member's own choice wins over the sender's: it is their inbox.
            return [Canal(c) for c in choisis]
        if not obligatoire:
            return []
    return list(demandes) if demandes else [canal_par_defaut(membre)]


def _adresse(membre: Membre, canal: Canal) -> str | None:
    return {Canal.EMAIL: membre.email, Canal.SMS: membre.telephone, Canal.IN_APP: None}[canal]


class Emetteur:
    def __init__(self, session: AsyncSession, cree_par: str | None) -> None:
        self.session = session
        self.cree_par = cree_par

    async def preferences(self, membre_ids: Sequence[uuid.UUID]) -> dict[uuid.UUID, PreferenceMembre]:
        return await PreferenceMembreRepository(self.session).of_membres(membre_ids)

    async def emettre_lot(self, membres: Sequence[Membre], type_notification: str,
                          message: Callable[[Membre, Canal], tuple[str, str]], *,
                          organisation_id: uuid.UUID | None, canaux: Sequence[Canal] | None = None,
                          source: tuple[str, uuid.UUID] | None = None, code_modele: str | None = None) -> BilanEmission:
        """``message(membre, canal)`` gives (sujet, corps). Rows are added to the session, not committed."""
        prefs = await self.preferences([m.id for m in membres])
        arrets = await OppositionSmsRepository(self.session).parmi(m.telephone for m in membres) \
            if type_notification in ARRETABLES else frozenset()
        traitement, coupes = OPPOSITIONS.get(type_notification, ("", frozenset()))
        opposes = await OppositionTraitementRepository(self.session).opposes([m.id for m in membres], traitement) \
            if traitement else frozenset()
        bilan = BilanEmission(destinataires=len(membres))
        for membre in membres:
            rows = self.lignes(membre, prefs.get(membre.id), type_notification, message,
                               organisation_id=organisation_id, canaux=canaux, source=source, code_modele=code_modele,
                               arrets=arrets, coupes=coupes if membre.id in opposes else frozenset())
            if not rows:
                bilan.refusees += 1
                continue
            for row in rows:
                if row.statut == S.ECHOUEE.value:
                    bilan.sans_adresse += 1
                self.session.add(row)
                bilan.par_canal[row.canal] += 1
                bilan.notifications.append(row)
        await self.session.flush()
        for row in bilan.notifications:
            if row.statut != S.EN_ATTENTE:
                await synchroniser_source(self.session, row)
        return bilan

    def lignes(self, membre: Membre, pref: PreferenceMembre | None, type_notification: str,
               message: Callable[[Membre, Canal], tuple[str, str]], *, organisation_id: uuid.UUID | None,
               canaux: Sequence[Canal] | None = None, source: tuple[str, uuid.UUID] | None = None,
               code_modele: str | None = None, arrets: frozenset[str] = frozenset(),
               coupes: frozenset[Canal] = frozenset()) -> list[Notification]:
        """The outbox rows for one member (none if the member refused this kind), not added to the session.
        ``arrets``: numbers that answered STOP (honoured for ``ARRETABLES``); ``coupes``: the channels the
        member's opposition to this kind's processing stops (``OPPOSITIONS``): no row on them (the inbox instead,
        when it is not cut)."""
        now = utcnow()
        rows = []
        choisis = choisir_canaux(membre, pref, type_notification, canaux)
        if coupes:
            restants = [c for c in choisis if c not in coupes]
            # What the opposition leaves: his own inbox when it is not cut too (a reminder of dues he owes).
            choisis = restants or ([Canal.IN_APP] if choisis and Canal.IN_APP not in coupes else [])
        for canal in choisis:
            sujet, corps = message(membre, canal)
            row = Notification(
                id=uuid.uuid4(), membre_id=membre.id, organisation_id=organisation_id,
                type_notification=type_notification, canal=canal.value, adresse=_adresse(membre, canal),
                sujet=sujet[:200], corps=corps, statut=S.EN_ATTENTE.value, tentatives=0,
                source_type=source[0] if source else None, source_id=source[1] if source else None,
                code_modele=code_modele, cree_par=self.cree_par)
            if canal is Canal.IN_APP:
                # Stored is delivered: the member's inbox lists it.
                row.statut, row.date_envoi = S.ENVOYEE.value, now
            elif row.adresse is None:
                what = "adresse e-mail" if canal is Canal.EMAIL else "numéro de téléphone"
                row.statut, row.derniere_erreur = S.ECHOUEE.value, f"Membre sans {what}"
            elif canal is Canal.SMS and row.adresse in arrets and type_notification in ARRETABLES:
                row.statut, row.derniere_erreur = S.ECHOUEE.value, ARRET_SMS
            rows.append(row)
        return rows

    async def emettre(self, membre: Membre, type_notification: str, sujet: str, corps: str, *,
                      organisation_id: uuid.UUID | None, source: tuple[str, uuid.UUID] | None = None,
                      canaux: Sequence[Canal] | None = None) -> BilanEmission:
        return await self.emettre_lot([membre], type_notification, lambda _m, _c: (sujet, corps),
                                      organisation_id=organisation_id, canaux=canaux, source=source)

    async def emettre_boite(self, membre: Membre, type_notification: str, sujet: str, corps: str, *,
                            organisation_id: uuid.UUID | None, source: tuple[str, uuid.UUID] | None = None) -> None:
        """One notice to the member's own inbox, whatever his preferences: what the law says he must be told
        (the information at collection of Loi 2008-12 art. 58), too long for an SMS, never refused."""
        for row in self.lignes(membre, None, type_notification, lambda _m, _c: (sujet, corps),
                               organisation_id=organisation_id, canaux=[Canal.IN_APP], source=source):
            self.session.add(row)
        await self.session.flush()

    async def emettre_adresse(self, telephone: str, type_notification: str, sujet: str, corps: str, *,
                              organisation_id: uuid.UUID | None, source: tuple[str, uuid.UUID] | None = None,
                              membre_id: uuid.UUID | None = None) -> None:
        """One SMS to this number, no preference applied: whoever paid a dues for a member (no ``membre_id``), or
        the member who asked for it just now from this phone (a payment link on USSD)."""
        self.session.add(_sms(telephone, type_notification, sujet[:200], corps, membre_id=membre_id,
                              organisation_id=organisation_id, source=source, auteur=self.cree_par))
        await self.session.flush()


def _sms(telephone: str, type_notification: str, sujet: str, corps: str, *, membre_id: uuid.UUID | None,
         organisation_id: uuid.UUID | None, source: tuple[str, uuid.UUID] | None, auteur: str | None,
         lien_premium: str | None = None) -> Notification:
    """The outbox row of one SMS to a number, outside preferences: the one place such a row is written."""
    return Notification(id=uuid.uuid4(), membre_id=membre_id, organisation_id=organisation_id,
                        type_notification=type_notification, canal=Canal.SMS.value, adresse=telephone, sujet=sujet,
                        corps=corps, statut=S.EN_ATTENTE.value, tentatives=0,
                        source_type=source[0] if source else None, source_id=source[1] if source else None,
                        cree_par=auteur, lien_premium=lien_premium)


def sms_direct(session: AsyncSession, telephone: str, texte: str, *, membre_id: uuid.UUID | None,
               organisation_id: uuid.UUID | None, source: tuple[str, uuid.UUID], auteur: str,
               lien_premium: str | None = None) -> Notification:
    """One SMS to a number, through the outbox, outside preferences and STOP: the answer to an SMS the number
    sent, or a code it asked for. One segment (``un_sms``). ``lien_premium``: the gateway's link id of the
    premium short-code message this answers (sent back with the answer)."""
    row = _sms(telephone, TypeNotification.INFORMATION.value, "SMS", un_sms(texte), membre_id=membre_id,
               organisation_id=organisation_id, source=source, auteur=auteur, lien_premium=lien_premium)
    session.add(row)
    return row
