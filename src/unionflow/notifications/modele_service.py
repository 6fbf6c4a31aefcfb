"""Notification templates: global ones (ADMIN, SUPER_ADMIN) and an organisation's own (its ADMIN_ORGANISATION),
which take precedence over a global template of the same code when that organisation sends."""

from __future__ import annotations

import uuid

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.core import audit
from unionflow.core.auth import AuthContext
from unionflow.core.errors import Conflict, Forbidden, NotFound
from unionflow.core.pagination import Page, PageParams
from unionflow.core.permissions import Permission
from unionflow.models import ModeleNotification
from unionflow.notifications.rendu import placeholders
from unionflow.notifications.repository import ModeleRepository
from unionflow.notifications.schemas import CreateModeleRequest, ModeleResponse, UpdateModeleRequest
from unionflow.organisations.repository import OrganisationRepository

MODULE = "NOTIFICATIONS"
FIELDS = ["code", "canal", "organisation_id", "libelle", "sujet", "corps", "actif"]


def _dto(modele: ModeleNotification) -> ModeleResponse:
    response = ModeleResponse.model_validate(modele)
    response.variables = sorted(placeholders(modele.sujet) | placeholders(modele.corps))
    return response


class ModeleService:
    def __init__(self, session: AsyncSession, auth: AuthContext) -> None:
        self.session = session
        self.auth = auth
        self.repo = ModeleRepository(session, auth)

    def _check_manage(self, organisation_id: uuid.UUID | None) -> None:
        if organisation_id is None and not self.auth.is_global:
            raise Forbidden("Seul un administrateur de l'union gère les modèles globaux")
        if organisation_id is not None:
            self.auth.require(Permission.NOTIFICATION_MODELE_GERER, organisation_id,
                              "Vous n'administrez pas cette organisation")

    async def _get(self, modele_id: uuid.UUID, *, for_update: bool = False) -> ModeleNotification:
        modele = await self.repo.get(modele_id, for_update=for_update)
        if modele is None:
            raise NotFound("Modèle de notification introuvable")
        return modele

    async def creer(self, data: CreateModeleRequest) -> ModeleResponse:
        placeholders(data.sujet)
        placeholders(data.corps)
        organisations = OrganisationRepository(self.session, None)
        if data.organisation_id is not None and await organisations.get(data.organisation_id) is None:
            raise NotFound("Organisation introuvable")
        self._check_manage(data.organisation_id)
        portee = str(data.organisation_id) if data.organisation_id else "GLOBAL"
        if await self.repo.exists(data.code, data.canal.value, portee):
            raise Conflict(f"Un modèle {data.code} {data.canal.value} existe déjà pour cette portée")
        modele = ModeleNotification(**data.model_dump(), portee=portee)
        modele.canal = data.canal.value
        self.repo.add(modele)
        await self.session.flush()
        await audit.record(self.session, self.auth, action="CREER", module=MODULE, entite_type="ModeleNotification",
                           entite_id=modele.id, organisation_id=modele.organisation_id,
                           after=audit.snapshot(modele, FIELDS))
        return _dto(modele)

    async def obtenir(self, modele_id: uuid.UUID) -> ModeleResponse:
        return _dto(await self._get(modele_id))

    async def lister(self, code: str | None, organisation_id: uuid.UUID | None,
                     params: PageParams) -> Page[ModeleResponse]:
        rows, total, exact = await self.repo.search(code, organisation_id, params)
        return Page[ModeleResponse].build([_dto(r) for r in rows], params, total, exact)

    async def modifier(self, modele_id: uuid.UUID, data: UpdateModeleRequest) -> ModeleResponse:
        modele = await self._get(modele_id, for_update=True)
        self._check_manage(modele.organisation_id)
        changes = data.model_dump(exclude_unset=True)
        for key in ("sujet", "corps"):
            if changes.get(key) is not None:
                placeholders(changes[key])
        before = audit.snapshot(modele, FIELDS)
        for key, value in changes.items():
            if value is not None or key == "libelle":
                setattr(modele, key, value)
        await self.session.flush()
        await audit.record(self.session, self.auth, action="MODIFIER", module=MODULE, entite_type="ModeleNotification",
                           entite_id=modele.id, organisation_id=modele.organisation_id, before=before,
                           after=audit.snapshot(modele, FIELDS))
        return _dto(modele)

    async def supprimer(self, modele_id: uuid.UUID) -> None:
        modele = await self._get(modele_id, for_update=True)
        self._check_manage(modele.organisation_id)
        before, organisation_id = audit.snapshot(modele, FIELDS), modele.organisation_id
        await self.repo.delete(modele)
        await self.session.flush()
        # Notifications already sent keep their rendered text; they only remember the template's code.
        await audit.record(self.session, self.auth, action="SUPPRIMER", module=MODULE, entite_type="ModeleNotification",
                           entite_id=modele_id, organisation_id=organisation_id,
                           before=before, severite="WARNING")
