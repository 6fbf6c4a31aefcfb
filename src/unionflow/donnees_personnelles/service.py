"""Consents to the processing of sensitive data (Loi 2008-12): recorded by the member himself or, from a signed
paper form, by the secretariat (``consentement.recueillir``); withdrawn the same ways. A withdrawal dates the row
and keeps it; consenting again adds a row. The notice text the member read (rendered for the organisation, the
controller it names: notices.py) is stored with its version."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.config import Settings
from unionflow.core import audit
from unionflow.core.auth import AuthContext
from unionflow.core.db import flush_unique
from unionflow.core.errors import Conflict, InvalidState, NotFound, RegleMetier
from unionflow.core.permissions import Permission
from unionflow.donnees_personnelles.notices import VERSION, empreinte, rendre
from unionflow.donnees_personnelles.repository import (
    ConsentementRepository,
    ConsentementSystemRepository,
    NoticeRepository,
    organisations_dpo,
)
from unionflow.donnees_personnelles.schemas import (
    ConsentementResponse,
    CreateConsentementRequest,
    NoticeResponse,
)
from unionflow.membres.repository import MembreRepository
from unionflow.models import Consentement, NoticeInformation
from unionflow.models.donnees_personnelles import CanalConsentement, FinaliteConsentement
from unionflow.models.organisation import Organisation
from unionflow.organisations.repository import OrganisationRepository

MODULE = "DONNEES_PERSONNELLES"
# Aid types whose request states the member's health (docs/donnees-personnelles.md): they need SANTE_AIDE.
TYPES_AIDE_SANTE = frozenset({"MALADIE"})


def to_response(c: Consentement) -> ConsentementResponse:
    return ConsentementResponse(
        id=c.id, membre_id=c.membre_id, organisation_id=c.organisation_id,
        finalite=FinaliteConsentement(c.finalite), notice_version=c.notice_version, canal=CanalConsentement(c.canal),
        donne_le=c.donne_le, recueilli_par_nom=c.recueilli_par_nom, en_vigueur=c.retire_le is None,
        retire_le=c.retire_le, retire_par_nom=c.retire_par_nom)


def notices_de(organisation: Organisation, settings: Settings) -> list[NoticeResponse]:
    """The notices in force for a consent given to ``organisation``, one per purpose."""
    return [NoticeResponse(finalite=f, version=VERSION,
                           texte=rendre(f, organisation, settings.donnees_radies_conservation_ans),
                           organisation_id=organisation.id) for f in FinaliteConsentement]


async def notices(session: AsyncSession, auth: AuthContext, settings: Settings,
                  organisation_id: uuid.UUID | None) -> list[NoticeResponse]:
    """The notices for ``organisation_id`` (one the caller sees, else 404), or for each organisation he is a
    member of (and his active one), by name: a notice names its controller, so there is no text without one."""
    repo = OrganisationRepository(session, auth)
    if organisation_id is not None:
        organisation = await repo.get(organisation_id)
        if organisation is None:
            raise NotFound("Organisation introuvable")
        return notices_de(organisation, settings)
    ids = set(auth.member_organisations) | ({auth.active_organisation_id} if auth.active_organisation_id else set())
    organisations = [o for o in [await repo.get(i) for i in ids] if o is not None]
    return [n for o in sorted(organisations, key=lambda o: (o.nom, o.id)) for n in notices_de(o, settings)]


async def exiger_consentement_sante(session: AsyncSession, membre_id: uuid.UUID, organisation_id: uuid.UUID,
                                    type_aide: str) -> None:
    """An aid request that states the member's health (type MALADIE) needs his SANTE_AIDE consent in force for
    that organisation (400 with the way to give it)."""
    if type_aide not in TYPES_AIDE_SANTE:
        return
    found = await ConsentementSystemRepository(session).en_vigueur(membre_id, organisation_id,
                                                                   FinaliteConsentement.SANTE_AIDE)
    if found is None:
        raise RegleMetier(
            f"type: une demande d'aide {type_aide} contient des données de santé; le membre doit d'abord consentir "
            "à leur traitement (finalité SANTE_AIDE: « Mon compte » › Mes données, ou "
            "POST /api/donnees-personnelles/consentements)", extra={"finalite": FinaliteConsentement.SANTE_AIDE})


class ConsentementService:
    def __init__(self, session: AsyncSession, auth: AuthContext, settings: Settings) -> None:
        self.session = session
        self.auth = auth
        self.settings = settings
        self.repo = ConsentementRepository(session, auth)
        self.membres = MembreRepository(session, auth)

    async def _membre_pour(self, membre_id: uuid.UUID, organisation_id: uuid.UUID) -> None:
        """The target is visible, a member of the organisation, and the caller may record for him there."""
        if membre_id == self.auth.membre_id:
            if organisation_id not in self.auth.member_organisations:
                raise RegleMetier("organisationId: vous n'êtes pas membre de cette organisation")
            return
        if await self.membres.get(membre_id) is None:
            raise NotFound("Membre introuvable")
        if await self.membres.membership(membre_id, organisation_id) is None:
            raise RegleMetier("organisationId: le membre n'appartient pas à cette organisation")
        self.auth.require(Permission.CONSENTEMENT_RECUEILLIR, organisation_id,
                          "Seuls le membre lui-même et le secrétariat de l'organisation enregistrent son "
                          "consentement")

    async def _notice(self, finalite: FinaliteConsentement, version: int,
                      organisation_id: uuid.UUID) -> NoticeInformation:
        """The stored text of the notice in force as rendered for the organisation now (what the member reads):
        stored the first time a member consents on it."""
        if version != VERSION:
            raise RegleMetier(f"noticeVersion: la notice en vigueur pour {finalite.value} est la version {VERSION}")
        organisation = await OrganisationRepository(self.session, self.auth).get(organisation_id)
        if organisation is None:
            raise NotFound("Organisation introuvable")
        texte = rendre(finalite, organisation, self.settings.donnees_radies_conservation_ans)
        cle = empreinte(texte)
        repo = NoticeRepository(self.session)
        found = await repo.texte(finalite, version, cle)
        if found is None:
            found = NoticeInformation(finalite=finalite.value, version=version, texte=texte, empreinte=cle)
            # A concurrent first consent stored it: take theirs.
            try:
                await flush_unique(self.session, "notice", found)
            except Conflict:
                found = await repo.texte(finalite, version, cle)
                assert found is not None
        return found

    async def recueillir(self, data: CreateConsentementRequest) -> ConsentementResponse:
        membre_id = data.membre_id or self.auth.membre_id
        if membre_id is None:
            raise RegleMetier("membreId: aucune fiche membre n'est liée à votre compte")
        await self._membre_pour(membre_id, data.organisation_id)
        if data.canal is CanalConsentement.USSD:
            # Every purpose here is sensitive data: Loi 2008-12 art. 41 2° wants a consent « par écrit, quel que
            # soit le support », given on an art. 58 notice that a USSD screen (182 characters) cannot show; the
            # member consents in the console or on a signed form (docs/conformite.md D2).
            raise RegleMetier("canal: un consentement aux données sensibles (loi 2008-12, art. 41 2°) se donne par "
                              "écrit, après lecture de la notice: dans la console ou sur formulaire signé (PAPIER), "
                              "pas par USSD")
        if membre_id != self.auth.membre_id and data.canal is not CanalConsentement.PAPIER:
            # Staff record what the member signed: the consent itself is the member's act, on paper.
            raise RegleMetier("canal: le secrétariat enregistre un consentement signé sur papier (PAPIER)")
        notice = await self._notice(data.finalite, data.notice_version, data.organisation_id)
        if await ConsentementSystemRepository(self.session).en_vigueur(membre_id, data.organisation_id,
                                                                       data.finalite) is not None:
            raise Conflict(f"Un consentement {data.finalite.value} est déjà en vigueur pour ce membre")
        row = Consentement(membre_id=membre_id, organisation_id=data.organisation_id, finalite=data.finalite.value,
                           notice_id=notice.id, notice_version=notice.version, canal=data.canal.value,
                           donne_le=datetime.now(UTC), recueilli_par=self.auth.personne,
                           recueilli_par_nom=self.auth.actor_name[:254])
        await flush_unique(self.session, f"Un consentement {data.finalite.value} est déjà en vigueur", row)
        await audit.record(self.session, self.auth, action="CONSENTIR", module=MODULE, entite_type="Consentement",
                           entite_id=row.id, organisation_id=row.organisation_id, after=audit.snapshot(row),
                           description=f"Consentement {row.finalite} ({row.canal})")
        return to_response(row)

    async def retirer(self, consentement_id: uuid.UUID) -> ConsentementResponse:
        row = await self.repo.get(consentement_id, for_update=True)
        if row is None:
            raise NotFound("Consentement introuvable")
        if row.membre_id != self.auth.membre_id:
            self.auth.require(Permission.CONSENTEMENT_RECUEILLIR, row.organisation_id,
                              "Seuls le membre lui-même et le secrétariat de l'organisation retirent son "
                              "consentement")
        if row.retire_le is not None:
            raise InvalidState("Ce consentement est déjà retiré")
        before = audit.snapshot(row)
        row.retire_le, row.retire_par = datetime.now(UTC), self.auth.personne
        row.retire_par_nom = self.auth.actor_name[:254]
        await self.session.flush()
        await audit.record(self.session, self.auth, action="RETIRER", module=MODULE, entite_type="Consentement",
                           entite_id=row.id, organisation_id=row.organisation_id, before=before,
                           after=audit.snapshot(row), description=f"Retrait du consentement {row.finalite}")
        return to_response(row)

    async def du_membre(self, membre_id: uuid.UUID) -> list[ConsentementResponse]:
        """A member's consents: 404 unless the caller sees the member (register keeper, himself, global) or is
        the data-protection officer of one of his organisations."""
        if membre_id != self.auth.membre_id and await self.membres.get(membre_id) is None:
            dpo = organisations_dpo(self.auth)
            if not dpo or not {m.organisation_id for m in await self.membres.memberships(membre_id)} & dpo:
                raise NotFound("Membre introuvable")
        return [to_response(c) for c in await self.repo.du_membre(membre_id)]

    async def miens(self) -> list[ConsentementResponse]:
        if self.auth.membre_id is None:
            raise NotFound("Aucune fiche membre n'est liée à votre compte")
        return [to_response(c) for c in await self.repo.du_membre(self.auth.membre_id)]
