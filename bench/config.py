"""Scales and fixed names shared by the bench modules."""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS_DIR = ROOT / "bench" / "results"
WORK_DIR = ROOT / "var" / "bench"
PG_ADMIN_DSN = os.environ.get("BENCH_PG_ADMIN_DSN", "postgresql://postgres@127.0.0.1:5432/postgres")


@dataclass(frozen=True)
class Scale:
    name: str
    organisations: int
    membres: int
    cotisations: int
    paiements: int
    adhesions: int
    evenements: int
    audit: int

    def as_dict(self) -> dict[str, int | str]:
        return asdict(self)


SCALES: dict[str, Scale] = {
    "default": Scale("default", organisations=200, membres=100_000, cotisations=1_000_000, paiements=200_000,
                     adhesions=400_000, evenements=5_000, audit=1_000_000),
    "large": Scale("large", organisations=200, membres=100_000, cotisations=10_000_000, paiements=200_000,
                   adhesions=400_000, evenements=5_000, audit=1_000_000),
    # Issue 32: a national federation (1,000 organisations, a million members, 12 monthly dues each); the books
    # hold one entry per payment (bench/livres.py), so 2,000,000 entries.
    "national": Scale("national", organisations=1_000, membres=1_000_000, cotisations=12_000_000,
                      paiements=2_000_000, adhesions=1_000_000, evenements=20_000, audit=5_000_000),
    # Quick end-to-end check of the bench itself (not a measurement scale).
    "tiny": Scale("tiny", organisations=20, membres=2_000, cotisations=20_000, paiements=4_000,
                  adhesions=6_000, evenements=100, audit=20_000),
}
# SQLite write-path instance (S5): small on purpose, it measures locking, not volume.
SQLITE_SCALE = Scale("sqlite", organisations=20, membres=2_000, cotisations=20_000, paiements=2_000,
                     adhesions=8_000, evenements=0, audit=5_000)


def pg_database(scale: Scale) -> str:
    """``BENCH_PG_DATABASE`` keeps a second data set beside the usual one: two trees of different schemas measured
    in turn (before/after), each on data built by its own migrations."""
    return os.environ.get("BENCH_PG_DATABASE") or (
        "unionflow_bench" if scale.name == "default" else f"unionflow_bench_{scale.name}")


def pg_url(database: str) -> str:
    base = PG_ADMIN_DSN.rsplit("/", 1)[0]
    return f"{base}/{database}"
