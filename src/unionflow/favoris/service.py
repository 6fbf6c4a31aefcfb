"""Favourites: a user's bookmarks of events, organisations, documents and members they may see."""

from __future__ import annotations

import uuid

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.core import audit
from unionflow.core.auth import AuthContext
from unionflow.core.db import flush_unique
from unionflow.core.errors import Conflict, NotFound
from unionflow.core.pagination import Page, PageParams
from unionflow.favoris.repository import FavoriRepository
from unionflow.favoris.schemas import CreateFavoriRequest, FavoriResponse, FavoriStatut
from unionflow.models import Favori
from unionflow.models.favori import TypeCible

MODULE = "FAVORIS"
LABELS = {TypeCible.EVENEMENT: "Événement", TypeCible.ORGANISATION: "Organisation",
          TypeCible.DOCUMENT: "Document", TypeCible.MEMBRE: "Membre"}


def to_response(favori: Favori, libelle: str | None) -> FavoriResponse:
    return FavoriResponse(id=favori.id, type_cible=TypeCible(favori.type_cible), cible_id=favori.cible_id,
                          libelle=libelle, disponible=libelle is not None, created_at=favori.created_at)


class FavoriService:
    def __init__(self, session: AsyncSession, auth: AuthContext) -> None:
        self.session = session
        self.auth = auth
        self.repo = FavoriRepository(session, auth)

    async def ajouter(self, data: CreateFavoriRequest) -> FavoriResponse:
        libelle = await self.repo.label(data.type_cible.value, data.cible_id)
        if libelle is None:
            raise NotFound(f"{LABELS[data.type_cible]} introuvable")
        if await self.repo.find(data.type_cible.value, data.cible_id) is not None:
            raise Conflict("Déjà dans vos favoris")
        favori = Favori(utilisateur_sub=self.auth.personne, type_cible=data.type_cible.value, cible_id=data.cible_id)
        # A double click racing with itself meets the unique constraint: same answer as above.
        await flush_unique(self.session, "Déjà dans vos favoris", favori)
        await audit.record(self.session, self.auth, action="CREER", module=MODULE, entite_type="Favori",
                           entite_id=favori.id, after={"typeCible": favori.type_cible, "cibleId": favori.cible_id})
        return to_response(favori, libelle)

    async def lister(self, type_cible: TypeCible | None, params: PageParams) -> Page[FavoriResponse]:
        rows, total, exact = await self.repo.search(type_cible.value if type_cible else None, params)
        items = [to_response(f, await self.repo.label(f.type_cible, f.cible_id)) for f in rows]
        return Page[FavoriResponse].build(items, params, total, exact)

    async def status(self, type_cible: TypeCible, cible_id: uuid.UUID) -> FavoriStatut:
        favori = await self.repo.find(type_cible.value, cible_id)
        return FavoriStatut(favori=favori is not None, id=favori.id if favori else None)

    async def retirer(self, favori_id: uuid.UUID) -> None:
        favori = await self.repo.get(favori_id)
        if favori is None:
            raise NotFound("Favori introuvable")
        await self.repo.remove(favori.id)
        await audit.record(self.session, self.auth, action="SUPPRIMER", module=MODULE, entite_type="Favori",
                           entite_id=favori.id, before={"typeCible": favori.type_cible, "cibleId": favori.cible_id})
