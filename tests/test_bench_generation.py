"""The dues-generation bench of issue 20 (``make bench-generation``, docs/performance.md) on a small N, so that it
does not rot: seeding by COPY, the treasurer's inline generation, its idempotent rerun and the background task
path (threshold lowered so that 200 members make a task), and the report it writes."""

from __future__ import annotations

import asyncio

import pytest
from bench.generation_cotisations import report, run

pytestmark = pytest.mark.postgresql_only


def test_the_generation_bench_runs_every_step_on_200_members():
    result = asyncio.run(run(200, seuil=50))

    assert result["role"] == "TRESORIER"
    assert result["generation_counts"] == {"creees": 200, "ignorees": 0, "taches": 0}
    assert result["regeneration_counts"] == {"creees": 0, "ignorees": 200, "taches": 0}
    assert result["tache_counts"] == {"creees": 200, "ignorees": 0, "taches": 1}
    md = report(result | {"uptime": "0.50, 0.40, 0.30"}, "20261126T000000Z")
    assert "| generation (POST /generer, inline) |" in md and "200 members" in md


def test_several_organisations_are_generated_by_the_admin():
    result = asyncio.run(run(90, organisations=3))

    assert result["role"] == "ADMIN"
    assert result["generation_counts"]["creees"] == 90
    assert result["tache_counts"] == {"creees": 90, "ignorees": 0, "taches": 0}
