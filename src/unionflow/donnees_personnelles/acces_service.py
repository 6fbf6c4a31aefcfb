"""Reading the access log of members' files (written by core/acces_dossier.py in each reading request): the member
reads who opened his file; the data-protection officer the reads of his organisations' members."""

from __future__ import annotations

import uuid

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.core.auth import AuthContext
from unionflow.core.errors import NotFound
from unionflow.core.pagination import Page, PageParams
from unionflow.donnees_personnelles.repository import AccesDossierRepository, AccesFilters, organisations_dpo
from unionflow.donnees_personnelles.schemas import AccesDossierResponse
from unionflow.membres.repository import MembreRepository
from unionflow.models import AccesDossier


class AccesDossierService:
    def __init__(self, session: AsyncSession, auth: AuthContext) -> None:
        self.session = session
        self.auth = auth
        self.repo = AccesDossierRepository(session, auth)
        self.membres = MembreRepository(session, auth)

    async def _page(self, filters: AccesFilters, params: PageParams) -> Page[AccesDossierResponse]:
        rows, total, exact = await self.repo.search(filters, params)
        noms = await self.membres.noms({r.membre_id for r in rows})
        return Page.build([_response(r, noms.get(r.membre_id)) for r in rows], params, total, exact)

    async def miens(self, params: PageParams) -> Page[AccesDossierResponse]:
        if self.auth.membre_id is None:
            raise NotFound("Aucune fiche membre n'est liée à votre compte")
        return await self._page(AccesFilters(membre_id=self.auth.membre_id), params)

    async def du_membre(self, membre_id: uuid.UUID, params: PageParams) -> Page[AccesDossierResponse]:
        """One member's log: the member himself, the data-protection officer of one of his organisations, a
        global administrator; anyone else 404 (another member's log does not exist for him)."""
        if not (self.auth.is_global or membre_id == self.auth.membre_id):
            dpo = organisations_dpo(self.auth)
            if not dpo or not {m.organisation_id for m in await self.membres.memberships(membre_id)} & dpo:
                raise NotFound("Membre introuvable")
        return await self._page(AccesFilters(membre_id=membre_id), params)

    async def lister(self, organisation_id: uuid.UUID | None, params: PageParams) -> Page[AccesDossierResponse]:
        """The reads of the members of the caller's organisations (data-protection officer) or of every member."""
        if organisation_id is not None and not (self.auth.is_global or organisation_id in organisations_dpo(self.auth)):
            raise NotFound("Organisation introuvable")
        return await self._page(AccesFilters(organisation_id=organisation_id), params)


def _response(row: AccesDossier, membre_nom: str | None) -> AccesDossierResponse:
    return AccesDossierResponse(id=row.id, membre_id=row.membre_id, membre_nom=membre_nom,
                                organisation_id=row.organisation_id, lecteur_nom=row.lecteur_nom,
                                lecteur_roles=[r for r in row.lecteur_roles.split(",") if r], ecran=row.ecran,
                                lu_le=row.lu_le)
