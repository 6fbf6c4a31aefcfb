"""Stored settings (one row per key set by an administrator; absent keys take their default). Settings belong
to the installation: read on the system's behalf by every area, written behind CONFIGURATION_GERER."""

from __future__ import annotations

from collections.abc import Iterable

from unionflow.core.repository import SystemRepository
from unionflow.models import ConfigurationEntry


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
