"""The engine comparison of issue 32 item 4 (``make bench-moteurs``, docs/decisions.md « Moteur de tâches: mesuré
contre Celery ») at a tiny scale: 200 reminders and 3 organisations' dues, 2 workers per engine, one SIGKILL per
job and engine at a fixed point (the gateway holding the 50th SMS; a generation task past its first chunk). It
asserts the properties the decision rests on, not timings: our engine loses no effect and re-sends only the
message in flight at the kill; Celery with acks_late loses none either; neither duplicates a database effect."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

pytestmark = pytest.mark.postgresql_only

MEMBRES, ORGANISATIONS, PAR_ORG = 200, 3, 1500


@pytest.fixture(scope="module")
def comparaison() -> dict[str, Any]:
    pytest.importorskip("celery", reason="celery not installed (pip install -e '.[dev]')")
    from bench.moteurs import run
    from bench.moteurs_mesures import broker_joignable
    from bench.telephones import sans_lignes_de_requete

    if (raison := broker_joignable()) is not None:
        pytest.skip(raison)
    with sans_lignes_de_requete():
        return asyncio.run(run(MEMBRES, workers=2, tuer_apres=50, organisations=ORGANISATIONS, par_org=PAR_ORG,
                               bail=3, tick=0.5))


@pytest.mark.parametrize("moteur", ["table", "celery"])
def test_undisturbed_each_engine_does_every_effect_once(comparaison, moteur):
    rappels, generation = comparaison["rappels"][moteur], comparaison["generation"][moteur]

    assert (rappels["effets"], rappels["perdus"], rappels["doubles"]) == (MEMBRES, 0, 0)
    assert rappels["lignes_envoyees"] == MEMBRES
    assert (generation["effets"], generation["perdus"], generation["doubles"]) == (ORGANISATIONS * PAR_ORG, 0, 0)
    assert generation["statuts"] == {"TERMINEE": ORGANISATIONS}
    assert rappels["cpu_ms_par_job"] > 0 and generation["cpu_ms_par_job"] > 0


def test_our_engine_after_a_kill_loses_nothing_and_resends_only_the_message_in_flight(comparaison):
    """The worker dies while the gateway holds its SMS: the row was never marked sent, so once its lease has passed
    another worker sends it again. At-least-once for an external effect, like any engine without an idempotency
    key at the gateway; the rest of the killed worker's leased batch is sent once."""
    rappels = comparaison["rappels"]["table_kill"]

    assert rappels["cible_trouvee"]
    assert (rappels["effets"], rappels["perdus"], rappels["doubles"]) == (MEMBRES, 0, 1)
    assert rappels["lignes_envoyees"] == MEMBRES
    assert rappels["reprise_s"] is not None


def test_our_engine_after_a_kill_mid_generation_creates_every_dues_exactly_once(comparaison):
    """Chunks are committed with their progress and a resumed task skips the dues already there."""
    generation = comparaison["generation"]["table_kill"]

    assert 0 < generation["traites_au_kill"] < PAR_ORG
    assert (generation["perdus"], generation["doubles"]) == (0, 0)
    assert generation["statuts"] == {"TERMINEE": ORGANISATIONS}
    assert generation["reprise_s"] is not None


def test_celery_with_acks_late_loses_nothing_after_a_kill(comparaison):
    """What is stable with acks_late, task_reject_on_worker_lost and prefetch 1: the killed child's message is
    redelivered, so nothing is lost; a duplicate is possible (the message in flight) and only counted, at most
    one since no other message was taken by the dead child."""
    rappels, generation = comparaison["rappels"]["celery_kill"], comparaison["generation"]["celery_kill"]

    assert rappels["cible_trouvee"]
    assert (rappels["effets"], rappels["perdus"]) == (MEMBRES, 0)
    assert rappels["doubles"] <= 1
    assert 0 < generation["traites_au_kill"] < PAR_ORG
    assert generation["perdus"] == 0
    assert generation["statuts"] == {"TERMINEE": ORGANISATIONS}


def test_the_report_has_a_line_per_job_engine_and_run(comparaison):
    from bench.moteurs import rapport

    md = rapport(comparaison | {"commit": "test"}, "20261203T000000Z", "test")

    for travail in ("rappels", "generation"):
        for cle in ("table", "table_kill", "celery", "celery_kill"):
            assert f"| {travail} | {cle} |" in md
