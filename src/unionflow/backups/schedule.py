"""When automatic backups are due. Times are UTC (most of the union's countries are on UTC)."""

from __future__ import annotations

from datetime import datetime, timedelta

from unionflow.models import SauvegardeConfig
from unionflow.models.monitoring import Frequence


def period(config: SauvegardeConfig) -> timedelta:
    return timedelta(days=7) if config.frequence == Frequence.HEBDOMADAIRE else timedelta(days=1)


def last_slot(config: SauvegardeConfig, now: datetime) -> datetime:
    """The most recent scheduled instant at or before ``now``."""
    hour, minute = (int(p) for p in config.heure.split(":"))
    slot = now.replace(hour=hour, minute=minute, second=0, microsecond=0)
    if config.frequence == Frequence.HEBDOMADAIRE:
        slot -= timedelta(days=(now.isoweekday() - config.jour_semaine) % 7)
    while slot > now:
        slot -= period(config)
    return slot


def next_slot(config: SauvegardeConfig, now: datetime) -> datetime | None:
    return last_slot(config, now) + period(config) if config.actif else None
