from __future__ import annotations

import uuid
from dataclasses import dataclass

from sqlalchemy import ColumnElement, and_, false, or_, select

from unionflow.core.auth import AuthContext
from unionflow.core.pagination import PageParams
from unionflow.core.repository import ScopedRepository, SystemRepository
from unionflow.models.approbation import DecisionDemande, DemandeApprobation, StatutDemande


@dataclass(frozen=True)
class ApprobationFilters:
    genre: str
    organisation_id: uuid.UUID | None = None
    statut: str | None = None
    nature: str | None = None
    objet_id: uuid.UUID | None = None
    a_decider: bool = False


class DemandeApprobationRepository(ScopedRepository[DemandeApprobation]):
    """Requests are the bureau's: union administrators see all, organisation staff their organisations (the
    default scope). One door for every kind; the kinds filter by ``genre``."""

    model = DemandeApprobation
    auth: AuthContext

    def _pas_les_miennes(self) -> list[ColumnElement[bool]]:
        """Neither asked nor already decided by the caller."""
        mine = select(DecisionDemande.id).where(DecisionDemande.demande_id == DemandeApprobation.id,
                                                DecisionDemande.decideur_sub == self.auth.personne)
        return [DemandeApprobation.demande_par_sub != self.auth.personne, ~mine.exists()]

    async def search(self, filters: ApprobationFilters,
                     params: PageParams) -> tuple[list[DemandeApprobation], int, bool]:
        stmt = self.select().where(DemandeApprobation.genre == filters.genre)
        if filters.organisation_id:
            stmt = stmt.where(DemandeApprobation.organisation_id == filters.organisation_id)
        if filters.statut:
            stmt = stmt.where(DemandeApprobation.statut == filters.statut)
        if filters.nature:
            stmt = stmt.where(DemandeApprobation.nature == filters.nature)
        if filters.objet_id:
            stmt = stmt.where(DemandeApprobation.objet_id == filters.objet_id)
        if filters.a_decider:
            stmt = stmt.where(DemandeApprobation.statut == StatutDemande.EN_ATTENTE,
                              DemandeApprobation.organisation_id.in_(self.auth.staff_organisations),
                              *self._pas_les_miennes())
        order = (DemandeApprobation.date_demande.asc() if filters.a_decider
                 else DemandeApprobation.date_demande.desc())
        return await self.paginate(stmt.order_by(order, DemandeApprobation.id), params)

    async def a_approuver(self, portees: dict[str, frozenset[uuid.UUID] | None],
                          params: PageParams) -> tuple[list[DemandeApprobation], int, bool]:
        """Pending requests of the given kinds, each in the organisations given for it (None: every organisation
        the caller sees), neither asked nor already decided by the caller; oldest first. The organisations given
        are those where the caller holds the kind's decision permission: a decider who is not organisation staff
        (the data-protection officer) sees there the requests he decides, and nothing else."""
        par_genre = [and_(DemandeApprobation.genre == genre,
                          self.scope() if organisations is None else _dans(organisations))
                     for genre, organisations in portees.items()]
        stmt = select(DemandeApprobation).where(DemandeApprobation.statut == StatutDemande.EN_ATTENTE,
                                   or_(false(), *par_genre), *self._pas_les_miennes())
        return await self.paginate(stmt.order_by(DemandeApprobation.date_demande.asc(), DemandeApprobation.id),
                                   params)

    async def courantes(self, genre: str, objet_id: uuid.UUID, *, nature: str | None = None,
                        for_update: bool = False) -> list[DemandeApprobation]:
        """Requests of one kind about one object that are not withdrawn, newest first."""
        stmt = select(DemandeApprobation).where(DemandeApprobation.genre == genre,
                                                DemandeApprobation.objet_id == objet_id,
                                                DemandeApprobation.statut != StatutDemande.RETIREE)
        if nature is not None:
            stmt = stmt.where(DemandeApprobation.nature == nature)
        stmt = stmt.order_by(DemandeApprobation.date_demande.desc(), DemandeApprobation.id)
        if for_update:
            stmt = stmt.with_for_update()
        return list((await self.session.execute(stmt)).scalars())

    async def du_sujet(self, genre: str, objet_id: uuid.UUID, limite: int) -> list[DemandeApprobation]:
        """Every request of one kind about one object, withdrawn ones too, newest first, at most ``limite`` (the
        kind checked the caller may see them: the data subject his own)."""
        stmt = select(DemandeApprobation).where(DemandeApprobation.genre == genre,
                                                DemandeApprobation.objet_id == objet_id)
        stmt = stmt.order_by(DemandeApprobation.date_demande.desc(), DemandeApprobation.id).limit(limite)
        return list((await self.session.execute(stmt)).scalars())

    async def de_l_organisation(self, genre: str, organisation_id: uuid.UUID,
                                statut: str | None = None) -> list[DemandeApprobation]:
        """One kind's requests of one organisation, newest first (the caller checked it may see them)."""
        stmt = select(DemandeApprobation).where(DemandeApprobation.genre == genre,
                                                DemandeApprobation.organisation_id == organisation_id)
        if statut is not None:
            stmt = stmt.where(DemandeApprobation.statut == statut)
        stmt = stmt.order_by(DemandeApprobation.date_demande.desc(), DemandeApprobation.id)
        return list((await self.session.execute(stmt)).scalars())

    async def du_genre(self, genre: str, demande_id: uuid.UUID, *, scoped: bool = True,
                       for_update: bool = False) -> DemandeApprobation | None:
        """One request of one kind by id (``scoped=False``: the kind checks visibility itself)."""
        stmt = (self.select() if scoped else select(DemandeApprobation)).where(
            DemandeApprobation.id == demande_id, DemandeApprobation.genre == genre)
        if for_update:
            stmt = stmt.with_for_update()
        return (await self.session.execute(stmt)).scalar_one_or_none()


    async def parmi(self, genre: str, ids: list[uuid.UUID], statut: str) -> set[uuid.UUID]:
        """Which of these requests of one kind are in ``statut`` (unscoped: the caller names requests it holds)."""
        if not ids:
            return set()
        stmt = select(DemandeApprobation.id).where(DemandeApprobation.id.in_(ids), DemandeApprobation.genre == genre,
                                                   DemandeApprobation.statut == statut)
        return set((await self.session.execute(stmt)).scalars())

    async def lister(self, genre: str, organisation_id: uuid.UUID | None, statut: str | None,
                     limite: int) -> list[DemandeApprobation]:
        """One kind's requests the caller sees, newest first, at most ``limite``."""
        stmt = self.select().where(DemandeApprobation.genre == genre)
        if organisation_id is not None:
            stmt = stmt.where(DemandeApprobation.organisation_id == organisation_id)
        if statut is not None:
            stmt = stmt.where(DemandeApprobation.statut == statut)
        stmt = stmt.order_by(DemandeApprobation.date_demande.desc(), DemandeApprobation.id).limit(limite)
        return list((await self.session.execute(stmt)).scalars())


class DemandeApprobationSystemRepository(SystemRepository[DemandeApprobation]):
    """After the object a request is about was loaded through its scoped repository: its requests."""

    model = DemandeApprobation

    async def sur_objet(self, genre: str, objet_id: uuid.UUID, statut: str,
                        natures: frozenset[str] | None = None) -> DemandeApprobation | None:
        """One request of a kind about an object in a state (of the given natures)."""
        stmt = self.select().where(DemandeApprobation.genre == genre, DemandeApprobation.objet_id == objet_id,
                                   DemandeApprobation.statut == statut)
        if natures is not None:
            stmt = stmt.where(DemandeApprobation.nature.in_(natures))
        return (await self.session.execute(stmt.limit(1))).scalar_one_or_none()


def _dans(organisations: frozenset[uuid.UUID]) -> ColumnElement[bool]:
    return DemandeApprobation.organisation_id.in_(organisations)
