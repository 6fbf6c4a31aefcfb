"""The connected member's preferences. Read by notifications.emission when choosing channels."""

from __future__ import annotations

import uuid

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.core import audit
from unionflow.core.auth import AuthContext
from unionflow.core.errors import NotFound
from unionflow.models import PreferenceMembre
from unionflow.models.notification import OBLIGATOIRES, Langue, Theme
from unionflow.preferences.repository import PreferenceMembreRepository
from unionflow.preferences.schemas import PreferencesResponse, UpdatePreferencesRequest

MODULE = "PREFERENCES"
FIELDS = ["langue", "theme", "canaux_par_type", "refus_non_obligatoires"]


def _dto(pref: PreferenceMembre | None) -> PreferencesResponse:
    obligatoires = sorted(t.value for t in OBLIGATOIRES)
    if pref is None:
        return PreferencesResponse(langue=Langue.FR.value, theme=Theme.SYSTEME.value, canaux_par_type={},
                                   refus_non_obligatoires=False, types_obligatoires=obligatoires, updated_at=None)
    return PreferencesResponse(langue=pref.langue, theme=pref.theme, canaux_par_type=dict(pref.canaux_par_type or {}),
                               refus_non_obligatoires=pref.refus_non_obligatoires,
                               types_obligatoires=obligatoires, updated_at=pref.updated_at)


class PreferenceService:
    def __init__(self, session: AsyncSession, auth: AuthContext) -> None:
        self.session = session
        self.auth = auth

    def _membre_id(self) -> uuid.UUID:
        if self.auth.membre_id is None:
            raise NotFound("Aucune fiche membre liée à ce compte")
        return self.auth.membre_id

    async def _row(self, membre_id: uuid.UUID, *, for_update: bool = False) -> PreferenceMembre | None:
        return await PreferenceMembreRepository(self.session).of_membre(membre_id, for_update=for_update)

    async def obtenir(self) -> PreferencesResponse:
        return _dto(await self._row(self._membre_id()))

    async def modifier(self, data: UpdatePreferencesRequest) -> PreferencesResponse:
        membre_id = self._membre_id()
        pref = await self._row(membre_id, for_update=True)
        if pref is None:
            pref = PreferenceMembre(membre_id=membre_id, langue=Langue.FR.value, theme=Theme.SYSTEME.value,
                                    canaux_par_type={}, refus_non_obligatoires=False)
            self.session.add(pref)
            before = None
        else:
            before = audit.snapshot(pref, FIELDS)
        changes = data.model_dump(exclude_unset=True)
        for key, value in changes.items():
            if value is None:
                continue
            if key == "canaux_par_type":
                value = {str(k): [str(c) for c in v] for k, v in value.items()}
            setattr(pref, key, value)
        await self.session.flush()
        await audit.record(self.session, self.auth, action="MODIFIER", module=MODULE, entite_type="PreferenceMembre",
                           entite_id=pref.id, before=before, after=audit.snapshot(pref, FIELDS))
        return _dto(pref)
