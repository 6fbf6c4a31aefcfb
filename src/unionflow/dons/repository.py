"""Queries on the register of donations and on the earmarked funds."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from datetime import datetime
from decimal import Decimal

from sqlalchemy import func, select

from unionflow.core.repository import SystemRepository
from unionflow.models.don import FondsDedie, LigneRegistreDon, MouvementFondsDedie, TypeMouvementFonds

LOT = 500


class RegistreDonRepository(SystemRepository[LigneRegistreDon]):
    """Unscoped: the service checked that the caller sees the organisation's staff records (or writes through a
    payment it was permitted to record)."""

    model = LigneRegistreDon

    async def dernier_hash(self, organisation_id: uuid.UUID) -> str | None:
        """The last line's hash; called after the organisation's register counter was taken (its row lock orders
        the writers, so two lines never chain on the same predecessor)."""
        stmt = (select(LigneRegistreDon.hash).where(LigneRegistreDon.organisation_id == organisation_id)
                .order_by(LigneRegistreDon.numero.desc()).limit(1))
        return (await self.session.execute(stmt)).scalar_one_or_none()

    async def du_paiement(self, paiement_id: uuid.UUID) -> LigneRegistreDon | None:
        """The line a DON receipt wrote (its first: a counter-line carries the same payment)."""
        stmt = (select(LigneRegistreDon).where(LigneRegistreDon.paiement_id == paiement_id)
                .order_by(LigneRegistreDon.numero).limit(1))
        return (await self.session.execute(stmt)).scalar_one_or_none()

    async def periode(self, organisation_id: uuid.UUID, debut: datetime, fin: datetime) -> list[LigneRegistreDon]:
        stmt = (select(LigneRegistreDon).where(LigneRegistreDon.organisation_id == organisation_id,
                                               LigneRegistreDon.date_don >= debut, LigneRegistreDon.date_don < fin)
                .order_by(LigneRegistreDon.date_don, LigneRegistreDon.numero))
        return list((await self.session.execute(stmt)).scalars())

    async def chaine(self, organisation_id: uuid.UUID) -> AsyncIterator[LigneRegistreDon]:
        """Every line in chain order, read in batches by number (a long register is not loaded at once)."""
        apres = 0
        while True:
            stmt = (select(LigneRegistreDon).where(LigneRegistreDon.organisation_id == organisation_id,
                                                   LigneRegistreDon.numero > apres)
                    .order_by(LigneRegistreDon.numero).limit(LOT))
            lot = list((await self.session.execute(stmt)).scalars())
            for ligne in lot:
                yield ligne
            if len(lot) < LOT:
                return
            apres = lot[-1].numero


class FondsDedieRepository(SystemRepository[FondsDedie]):
    """Unscoped, after the service's check of the organisation (as above)."""

    model = FondsDedie

    async def par_objet(self, organisation_id: uuid.UUID, objet: str) -> FondsDedie | None:
        stmt = select(FondsDedie).where(FondsDedie.organisation_id == organisation_id, FondsDedie.objet == objet)
        return (await self.session.execute(stmt.with_for_update())).scalar_one_or_none()

    async def de(self, organisation_id: uuid.UUID) -> list[FondsDedie]:
        stmt = select(FondsDedie).where(FondsDedie.organisation_id == organisation_id).order_by(FondsDedie.objet)
        return list((await self.session.execute(stmt)).scalars())

    async def verrouiller(self, fonds_id: uuid.UUID) -> FondsDedie | None:
        """The fund's row, locked: two uses assigned at once cannot both spend the last franc."""
        return await self.get(fonds_id, for_update=True)

    async def solde(self, fonds_id: uuid.UUID, avant: datetime | None = None) -> Decimal:
        """Received minus used, every movement (or those dated before ``avant``)."""
        return await self._somme(fonds_id, TypeMouvementFonds.RECU, None, avant) - await self._somme(
            fonds_id, TypeMouvementFonds.EMPLOI, None, avant)

    async def _somme(self, fonds_id: uuid.UUID, genre: str, debut: datetime | None, fin: datetime | None) -> Decimal:
        stmt = select(func.coalesce(func.sum(MouvementFondsDedie.montant), 0)).where(
            MouvementFondsDedie.fonds_id == fonds_id, MouvementFondsDedie.type_mouvement == genre)
        if debut is not None:
            stmt = stmt.where(MouvementFondsDedie.date_mouvement >= debut)
        if fin is not None:
            stmt = stmt.where(MouvementFondsDedie.date_mouvement < fin)
        return Decimal(str((await self.session.execute(stmt)).scalar_one()))

    async def sommes(self, fonds_id: uuid.UUID, debut: datetime, fin: datetime) -> tuple[Decimal, Decimal]:
        """Received and used between ``debut`` (included) and ``fin`` (excluded)."""
        return (await self._somme(fonds_id, TypeMouvementFonds.RECU, debut, fin),
                await self._somme(fonds_id, TypeMouvementFonds.EMPLOI, debut, fin))

    async def mouvements(self, fonds_id: uuid.UUID) -> list[MouvementFondsDedie]:
        stmt = (select(MouvementFondsDedie).where(MouvementFondsDedie.fonds_id == fonds_id)
                .order_by(MouvementFondsDedie.date_mouvement, MouvementFondsDedie.created_at))
        return list((await self.session.execute(stmt)).scalars())

    def ajouter(self, mouvement: MouvementFondsDedie) -> None:
        self.session.add(mouvement)
