"""The right of access (Loi 2008-12, art. 62; docs/conformite.md D6): every row naming the member, section by
section as the registry declares them, read through each table's owning repository; JSON or a readable PDF.

A member reads his own; the head or the administrator of one of his organisations (``donnees.exporter``) reads a
member's for him, and that reading is audited (a staff read of a whole file is an access to trace)."""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime
from decimal import Decimal
from enum import Enum
from typing import Any

from sqlalchemy import inspect
from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.core import audit
from unionflow.core.auth import AuthContext
from unionflow.core.errors import Forbidden, NotFound
from unionflow.core.permissions import Permission
from unionflow.core.repository import SystemRepository
from unionflow.donnees_membre.registre import SECTIONS, SectionExport, Sujet, masque
from unionflow.donnees_membre.schemas import DonneesMembreResponse, SectionDonnees
from unionflow.membres.repository import MembreRepository
from unionflow.models.membre import Membre

FONDEMENT = ("Loi n° 2008-12 du 25 janvier 2008, art. 62 (droit d'accès): communication des données à caractère "
             "personnel vous concernant")
MODULE = "DONNEES_MEMBRE"
# Derived columns, not data about the person: the accent-free search key.
INTERNES = frozenset({"recherche"})


def porte(section: SectionExport, session: AsyncSession) -> Any:
    """The section's owning repository, unscoped: the caller was checked before (member himself or his bureau)."""
    if issubclass(section.porte, SystemRepository):
        return section.porte(session)
    return section.porte(session, None)


def compte_local(membre: Membre, issuer: str) -> uuid.UUID | None:
    """The built-in identity provider's account linked to the member (its subject is the account's id)."""
    if membre.user_iss != issuer or not membre.user_sub:
        return None
    try:
        return uuid.UUID(membre.user_sub)
    except ValueError:
        return None


def valeur_sujet(section: SectionExport, membre: Membre, issuer: str) -> uuid.UUID | None:
    return membre.id if section.sujet is Sujet.MEMBRE else compte_local(membre, issuer)


def _json(value: Any) -> Any:
    if isinstance(value, uuid.UUID | Decimal):
        return str(value)
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, Enum):
        return value.value
    return value


def ligne(row: Any) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for attr in inspect(row).mapper.column_attrs:
        if attr.key in INTERNES:
            continue
        value = getattr(row, attr.key)
        result[attr.key] = "***" if masque(attr.key) and value is not None else _json(value)
    return result


async def collecter(session: AsyncSession, membre: Membre, issuer: str) -> list[SectionDonnees]:
    sections = []
    for section in SECTIONS:
        valeur = valeur_sujet(section, membre, issuer)
        rows = [] if valeur is None else await porte(section, session).lignes_du_sujet(
            section.table, section.colonne, valeur)
        sections.append(SectionDonnees(cle=section.cle, titre=section.titre, table=section.table,
                                       lignes=[ligne(r) for r in rows]))
    return sections


class DonneesService:
    def __init__(self, session: AsyncSession, auth: AuthContext, issuer: str) -> None:
        self.session = session
        self.auth = auth
        self.issuer = issuer

    async def _reponse(self, membre: Membre) -> DonneesMembreResponse:
        return DonneesMembreResponse(membre_id=membre.id, genere_le=datetime.now(UTC), fondement=FONDEMENT,
                                     sections=await collecter(self.session, membre, self.issuer))

    async def mes_donnees(self) -> tuple[Membre, DonneesMembreResponse]:
        if self.auth.membre_id is None:
            raise NotFound("Aucune fiche de membre n'est liée à ce compte")
        membre = await MembreRepository(self.session, self.auth).get(self.auth.membre_id)
        if membre is None:
            raise NotFound("Aucune fiche de membre n'est liée à ce compte")
        return membre, await self._reponse(membre)

    async def donnees_du_membre(self, membre_id: uuid.UUID) -> tuple[Membre, DonneesMembreResponse]:
        repo = MembreRepository(self.session, self.auth)
        membre = await repo.get(membre_id)
        if membre is None:
            raise NotFound("Membre introuvable")
        organisations = [m.organisation_id for m in await repo.memberships(membre.id)]
        permises = [o for o in organisations if self.auth.can(Permission.DONNEES_EXPORTER, o)]
        if not permises and not self.auth.can(Permission.DONNEES_EXPORTER, None):
            raise Forbidden("Seuls le président et l'administrateur d'une organisation du membre exportent toutes "
                            "ses données")
        await audit.record(self.session, self.auth, action="EXPORTER_DONNEES", module=MODULE, entite_type="Membre",
                           entite_id=membre.id, organisation_id=permises[0] if permises else None,
                           severite="WARNING",
                           description="Export de toutes les données du membre (droit d'accès, Loi 2008-12)")
        return membre, await self._reponse(membre)
