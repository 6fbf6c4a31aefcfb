from __future__ import annotations

import uuid
from typing import Any

from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.core.auth import AuthContext
from unionflow.core.pagination import PageParams, paginate
from unionflow.documents.repository import DocumentRepository
from unionflow.evenements.repository import EvenementRepository
from unionflow.membres.repository import MembreRepository
from unionflow.models import Favori
from unionflow.organisations.repository import OrganisationRepository


class FavoriRepository:
    """A user's own favourites only; targets are looked up through their areas' repositories, which apply
    those areas' visibility rules."""

    def __init__(self, session: AsyncSession, auth: AuthContext) -> None:
        self.session = session
        self.auth = auth

    async def get(self, favori_id: uuid.UUID) -> Favori | None:
        stmt = select(Favori).where(Favori.id == favori_id, Favori.utilisateur_sub == self.auth.sub)
        return (await self.session.execute(stmt)).scalar_one_or_none()

    async def find(self, type_cible: str, cible_id: uuid.UUID) -> Favori | None:
        stmt = select(Favori).where(Favori.utilisateur_sub == self.auth.sub, Favori.type_cible == type_cible,
                                    Favori.cible_id == cible_id)
        return (await self.session.execute(stmt)).scalar_one_or_none()

    async def search(self, type_cible: str | None, params: PageParams) -> tuple[list[Favori], int, bool]:
        stmt = select(Favori).where(Favori.utilisateur_sub == self.auth.sub)
        if type_cible:
            stmt = stmt.where(Favori.type_cible == type_cible)
        return await paginate(self.session, stmt.order_by(Favori.created_at.desc(), Favori.id), params)

    async def label(self, type_cible: str, cible_id: uuid.UUID) -> str | None:
        """The target's display name if the caller may see it, else None."""
        if type_cible == "EVENEMENT":
            evenement = await EvenementRepository(self.session, self.auth).get(cible_id)
            return evenement.titre if evenement else None
        if type_cible == "ORGANISATION":
            organisation = await OrganisationRepository(self.session, self.auth).get(cible_id)
            return organisation.nom if organisation else None
        if type_cible == "DOCUMENT":
            document = await DocumentRepository(self.session, self.auth).get(cible_id)
            return document.nom_fichier if document else None
        membre = await MembreRepository(self.session, self.auth).get(cible_id)
        return f"{membre.prenom} {membre.nom}" if membre else None

    async def remove(self, favori_id: uuid.UUID) -> None:
        await self.session.execute(delete(Favori).where(Favori.id == favori_id))

    def add(self, row: Any) -> None:
        self.session.add(row)
