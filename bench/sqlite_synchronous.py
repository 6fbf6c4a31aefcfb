"""Cost of ``PRAGMA synchronous=FULL`` against NORMAL (WAL) per commit, on this machine's disk.

``python -m bench.sqlite_synchronous [directory]``: commits of six rows each (about what a payment writes: payment,
allocation, dues, audit, two ledger lines), one writer, as the single SQLite write lock serialises them anyway.
"""

from __future__ import annotations

import sqlite3
import sys
import tempfile
import time
from contextlib import closing
from pathlib import Path

COMMITS = 400
ROWS_PER_COMMIT = 6


def per_commit_ms(directory: Path, mode: str) -> float:
    path = directory / f"synchronous-{mode.lower()}.db"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    with closing(sqlite3.connect(path, isolation_level=None)) as conn:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute(f"PRAGMA synchronous={mode}")
        conn.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, a TEXT, b TEXT)")
        started = time.perf_counter()
        for _ in range(COMMITS):
            conn.execute("BEGIN IMMEDIATE")
            for _ in range(ROWS_PER_COMMIT):
                conn.execute("INSERT INTO t (a, b) VALUES (?, ?)", ("x" * 80, "y" * 200))
            conn.execute("COMMIT")
        return (time.perf_counter() - started) / COMMITS * 1000


def main() -> None:
    with tempfile.TemporaryDirectory(dir=sys.argv[1] if len(sys.argv) > 1 else None) as tmp:
        for mode in ("NORMAL", "FULL"):
            ms = per_commit_ms(Path(tmp), mode)
            print(f"synchronous={mode}: {ms:.2f} ms per commit, {1000 / ms:.0f} commits/s at most")


if __name__ == "__main__":
    main()
