"""Stored settings (one row per key set by an administrator; absent keys take their default). Settings belong
to the installation: read on the system's behalf by every area, written behind CONFIGURATION_GERER."""

from __future__ import annotations

import uuid
from collections.abc import Iterable

from sqlalchemy import select

from unionflow.core.repository import SystemRepository
from unionflow.models import ConfigurationEntry, ConfigurationOrganisation, Organisation, ReferentielComptable


class ConfigurationEntryRepository(SystemRepository[ConfigurationEntry]):
    model = ConfigurationEntry

    async def get_by_cle(self, cle: str, *, for_update: bool = False) -> ConfigurationEntry | None:
        stmt = self.select().where(ConfigurationEntry.cle == cle)
        if for_update:
            stmt = stmt.with_for_update()
        row: ConfigurationEntry | None = (await self.session.execute(stmt)).scalar_one_or_none()
        return row

    async def by_cles(self, cles: Iterable[str]) -> dict[str, ConfigurationEntry]:
        stmt = self.select().where(ConfigurationEntry.cle.in_(list(cles)))
        return {e.cle: e for e in (await self.session.execute(stmt)).scalars()}


class ConfigurationOrganisationRepository(SystemRepository[ConfigurationOrganisation]):
    """An organisation's own values of the settings that may differ per organisation: read on the system's
    behalf (the dues job, the settlement workflow), written after the caller's permission was checked."""

    model = ConfigurationOrganisation

    async def get_by_cle(self, organisation_id: uuid.UUID, cle: str, *,
                         for_update: bool = False) -> ConfigurationOrganisation | None:
        stmt = self.select().where(ConfigurationOrganisation.organisation_id == organisation_id,
                                   ConfigurationOrganisation.cle == cle)
        if for_update:
            stmt = stmt.with_for_update()
        row: ConfigurationOrganisation | None = (await self.session.execute(stmt)).scalar_one_or_none()
        return row

    async def of_organisation(self, organisation_id: uuid.UUID) -> dict[str, ConfigurationOrganisation]:
        stmt = self.select().where(ConfigurationOrganisation.organisation_id == organisation_id)
        return {e.cle: e for e in (await self.session.execute(stmt)).scalars()}

    async def organisation_existe(self, organisation_id: uuid.UUID) -> bool:
        """Whether the organisation exists (configuration sits below organisations: it cannot call its door)."""
        stmt = select(Organisation.id).where(Organisation.id == organisation_id)
        return (await self.session.execute(stmt)).first() is not None

    async def type_organisation(self, organisation_id: uuid.UUID) -> str | None:
        """The organisation's type, None when it does not exist (a PCMS choice is a mutual's)."""
        stmt = select(Organisation.type_organisation).where(Organisation.id == organisation_id)
        return (await self.session.execute(stmt)).scalar_one_or_none()


class ReferentielComptableRepository(SystemRepository[ReferentielComptable]):
    """The recorded choices of referential (never updated: appended), read for an organisation the caller sees."""

    model = ReferentielComptable

    async def historique(self, organisation_id: uuid.UUID) -> list[ReferentielComptable]:
        """Every choice, the one in force last: by effective year, then by when it was recorded."""
        stmt = (self.select().where(ReferentielComptable.organisation_id == organisation_id)
                .order_by(ReferentielComptable.exercice, ReferentielComptable.created_at, ReferentielComptable.id))
        return list((await self.session.execute(stmt)).scalars())
