"""Configurable reference data (event types, document types, aid types...).

System entries (seeded by migrations) are never deleted; an entry whose code is used by a record is deactivated
instead of deleted, so history stays readable; codes and domains never change once created.
"""

from __future__ import annotations

import uuid

from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.core import audit
from unionflow.core.auth import AuthContext
from unionflow.core.errors import Conflict, NotFound, RegleMetier
from unionflow.core.pagination import Page, PageParams
from unionflow.models import TypeReference
from unionflow.types_reference.repository import TypeFilters, TypeReferenceRepository
from unionflow.types_reference.schemas import (
    CreateTypeReferenceRequest,
    DomaineResponse,
    TypeReferenceResponse,
    UpdateTypeReferenceRequest,
)

MODULE = "TYPES_REFERENCE"


async def require_code(session: AsyncSession, domaine: str, code: str, champ: str, *,
                       inactif_admis: bool = False) -> None:
    """The one check of a record's type against the reference table (events, documents, aid): unknown codes and,
    unless ``inactif_admis`` (search filters over history), deactivated ones are 400 with the allowed list."""
    repo = TypeReferenceRepository(session)
    actif = await repo.actif(domaine, code)
    if actif or (actif is not None and inactif_admis):
        return
    admis = ", ".join(await repo.codes_actifs(domaine))
    raison = "type inconnu" if actif is None else "type désactivé"
    raise RegleMetier(f"{champ}: {raison} « {code} » (valeurs admises: {admis})")


class TypeReferenceService:
    def __init__(self, session: AsyncSession, auth: AuthContext) -> None:
        self.session = session
        self.auth = auth
        self.repo = TypeReferenceRepository(session)

    async def _get(self, type_id: uuid.UUID, *, for_update: bool = False) -> TypeReference:
        entry = await self.repo.get(type_id, for_update=for_update)
        if entry is None:
            raise NotFound("Type de référence introuvable")
        return entry

    async def lister(self, filters: TypeFilters, params: PageParams) -> Page[TypeReferenceResponse]:
        rows, total, exact = await self.repo.search(filters, params)
        return Page[TypeReferenceResponse].build([TypeReferenceResponse.model_validate(r) for r in rows], params,
                                                 total, exact)

    async def domaines(self) -> list[DomaineResponse]:
        return [DomaineResponse(domaine=d, nombre=n, actifs=a) for d, n, a in await self.repo.domaines()]

    async def obtenir(self, type_id: uuid.UUID) -> TypeReferenceResponse:
        return TypeReferenceResponse.model_validate(await self._get(type_id))

    async def creer(self, data: CreateTypeReferenceRequest) -> TypeReferenceResponse:
        if await self.repo.exists(data.domaine, data.code):
            raise Conflict(f"Le code {data.code} existe déjà dans {data.domaine}")
        entry = TypeReference(**data.model_dump(), systeme=False)
        self.repo.add(entry)
        try:
            async with self.session.begin_nested():
                await self.session.flush()
        except IntegrityError as exc:
            # A concurrent creation of the same code won the unique constraint.
            raise Conflict(f"Le code {data.code} existe déjà dans {data.domaine}") from exc
        await audit.record(self.session, self.auth, action="CREER", module=MODULE, entite_type="TypeReference",
                           entite_id=entry.id, after=audit.snapshot(entry), organisation_id=None,
                           description=f"{entry.domaine}/{entry.code}")
        return TypeReferenceResponse.model_validate(entry)

    async def modifier(self, type_id: uuid.UUID, data: UpdateTypeReferenceRequest) -> TypeReferenceResponse:
        entry = await self._get(type_id, for_update=True)
        changes = data.model_dump(exclude_unset=True)
        nulls = [k for k, v in changes.items() if v is None and k != "description"]
        if nulls:
            raise RegleMetier(f"{', '.join(nulls)}: null interdit")
        before = audit.snapshot(entry)
        for key, value in changes.items():
            setattr(entry, key, value)
        await self.session.flush()
        await audit.record(self.session, self.auth, action="MODIFIER", module=MODULE, entite_type="TypeReference",
                           entite_id=entry.id, before=before, after=audit.snapshot(entry),
                           description=f"{entry.domaine}/{entry.code}")
        return TypeReferenceResponse.model_validate(entry)

    async def supprimer(self, type_id: uuid.UUID) -> TypeReferenceResponse | None:
        """Delete an unused custom entry (None), or deactivate one in use and return it."""
        entry = await self._get(type_id, for_update=True)
        if entry.systeme:
            raise Conflict(f"{entry.domaine}/{entry.code} est une entrée système: elle ne se supprime pas "
                           "(la désactiver par PUT actif=false)")
        before = audit.snapshot(entry)
        if await self.repo.en_utilisation(entry):
            entry.actif = False
            await self.session.flush()
            await audit.record(self.session, self.auth, action="DESACTIVER", module=MODULE,
                               entite_type="TypeReference", entite_id=entry.id, before=before,
                               after=audit.snapshot(entry), severite="WARNING",
                               description=f"{entry.domaine}/{entry.code} utilisé: désactivé au lieu d'être supprimé")
            return TypeReferenceResponse.model_validate(entry)
        await self.repo.delete(entry)
        await self.session.flush()
        await audit.record(self.session, self.auth, action="SUPPRIMER", module=MODULE, entite_type="TypeReference",
                           entite_id=type_id, before=before, severite="WARNING",
                           description=f"{before['domaine']}/{before['code']}")
        return None
