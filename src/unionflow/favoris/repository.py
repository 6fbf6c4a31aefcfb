from __future__ import annotations

import uuid
from typing import Any

from sqlalchemy import ColumnElement, delete, true

from unionflow.core.auth import AuthContext
from unionflow.core.pagination import PageParams
from unionflow.core.repository import ScopedRepository
from unionflow.core.visibility import EVERY, Shape, Visibility, scope_param
from unionflow.documents.repository import DocumentRepository
from unionflow.evenements.repository import EvenementRepository
from unionflow.membres.repository import MembreRepository
from unionflow.models import Favori
from unionflow.models.favori import TypeCible
from unionflow.organisations.repository import OrganisationRepository

# Bind parameter of the owner rule: the caller's subject.
SCOPE_SUB = "scope_sub"


class FavoriRepository(ScopedRepository[Favori]):
    """A user's own favourites only, whatever his roles; targets are looked up through their areas'
    repositories, which apply those areas' visibility rules."""

    model = Favori
    auth: AuthContext

    @classmethod
    def visibility(cls, auth: AuthContext | None) -> Visibility:
        if auth is None:
            return EVERY
        return Visibility(Shape(membre=True), {SCOPE_SUB: auth.personne})

    @classmethod
    def scope_condition(cls, shape: Shape, values: dict[str, Any] | None = None) -> ColumnElement[bool]:
        return true() if shape.every else Favori.utilisateur_sub == scope_param(SCOPE_SUB, values)

    async def find(self, type_cible: str, cible_id: uuid.UUID) -> Favori | None:
        stmt = self.select().where(Favori.type_cible == type_cible,
                                    Favori.cible_id == cible_id)
        return (await self.session.execute(stmt)).scalar_one_or_none()

    async def search(self, type_cible: str | None, params: PageParams) -> tuple[list[Favori], int, bool]:
        stmt = self.select()
        if type_cible:
            stmt = stmt.where(Favori.type_cible == type_cible)
        return await self.paginate(stmt.order_by(Favori.created_at.desc(), Favori.id), params)

    async def label(self, type_cible: str, cible_id: uuid.UUID) -> str | None:
        """The target's display name if the caller may see it, else None."""
        if type_cible == TypeCible.EVENEMENT:
            evenement = await EvenementRepository(self.session, self.auth).get(cible_id)
            return evenement.titre if evenement else None
        if type_cible == TypeCible.ORGANISATION:
            organisation = await OrganisationRepository(self.session, self.auth).get(cible_id)
            return organisation.nom if organisation else None
        if type_cible == TypeCible.DOCUMENT:
            document = await DocumentRepository(self.session, self.auth).get(cible_id)
            return document.nom_fichier if document else None
        membre = await MembreRepository(self.session, self.auth).get(cible_id)
        return f"{membre.prenom} {membre.nom}" if membre else None

    async def remove(self, favori_id: uuid.UUID) -> None:
        await self.session.execute(delete(Favori).where(Favori.id == favori_id))
