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


def _comparaison() -> dict[str, Any]:
    pytest.importorskip("celery", reason="celery not installed (pip install -e '.[dev]')")
    from bench.moteurs import run
    from bench.moteurs_mesures import broker_joignable
    from bench.telephones import sans_lignes_de_requete

    if (raison := broker_joignable()) is not None:
        pytest.skip(raison)
    with sans_lignes_de_requete():
        return asyncio.run(run(MEMBRES, workers=2, tuer_apres=50, organisations=ORGANISATIONS, par_org=PAR_ORG,
                               bail=3, tick=0.5))


def _chaque_moteur_sans_incident_fait_chaque_effet_une_fois(r: dict[str, Any]) -> None:
    for moteur in ("table", "celery"):
        rappels, generation = r["rappels"][moteur], r["generation"][moteur]
        assert (rappels["effets"], rappels["perdus"], rappels["doubles"]) == (MEMBRES, 0, 0), moteur
        assert rappels["lignes_envoyees"] == MEMBRES, moteur
        assert (generation["effets"], generation["perdus"], generation["doubles"]) == (
            ORGANISATIONS * PAR_ORG, 0, 0), moteur
        assert generation["statuts"] == {"TERMINEE": ORGANISATIONS}, moteur
        assert rappels["cpu_ms_par_job"] > 0 and generation["cpu_ms_par_job"] > 0, moteur


def _le_notre_apres_un_kill_ne_renvoie_que_le_sms_en_vol(r: dict[str, Any]) -> None:
    """The worker dies while the gateway holds its SMS: the row was never marked sent, so once its lease has passed
    another worker sends it again. At-least-once for an external effect, like any engine without an idempotency
    key at the gateway; the rest of the killed worker's leased batch is sent once."""
    rappels = r["rappels"]["table_kill"]
    assert rappels["cible_trouvee"]
    assert (rappels["effets"], rappels["perdus"], rappels["doubles"]) == (MEMBRES, 0, 1)
    assert rappels["lignes_envoyees"] == MEMBRES
    assert rappels["reprise_s"] is not None


def _le_notre_apres_un_kill_genere_chaque_cotisation_une_fois(r: dict[str, Any]) -> None:
    """Chunks are committed with their progress and a resumed task skips the dues already there."""
    generation = r["generation"]["table_kill"]
    assert 0 < generation["traites_au_kill"] < PAR_ORG
    assert (generation["perdus"], generation["doubles"]) == (0, 0)
    assert generation["statuts"] == {"TERMINEE": ORGANISATIONS}
    assert generation["reprise_s"] is not None


def _celery_avec_acks_late_ne_perd_rien_apres_un_kill(r: dict[str, Any]) -> None:
    """What is stable with acks_late, task_reject_on_worker_lost and prefetch 1: the killed child's message is
    redelivered, so nothing is lost; a duplicate is possible (the message in flight) and only counted, at most
    one since no other message was taken by the dead child."""
    rappels, generation = r["rappels"]["celery_kill"], r["generation"]["celery_kill"]
    assert rappels["cible_trouvee"]
    assert (rappels["effets"], rappels["perdus"]) == (MEMBRES, 0)
    assert rappels["doubles"] <= 1
    assert 0 < generation["traites_au_kill"] < PAR_ORG
    assert generation["perdus"] == 0
    assert generation["statuts"] == {"TERMINEE": ORGANISATIONS}


def _le_rapport_a_une_ligne_par_travail_moteur_et_passe(r: dict[str, Any]) -> None:
    from bench.moteurs import rapport

    md = rapport(r | {"commit": "test"}, "20261203T000000Z", "test")
    for travail in ("rappels", "generation"):
        for cle in ("table", "table_kill", "celery", "celery_kill"):
            assert f"| {travail} | {cle} |" in md


def test_the_engine_comparison_holds_the_invariants_of_the_decision():
    """One test, one comparison: under xdist, tests of one module may run in two processes, and each would run the
    whole comparison (about 100 s on 2 cores) again."""
    r = _comparaison()

    _chaque_moteur_sans_incident_fait_chaque_effet_une_fois(r)
    _le_notre_apres_un_kill_ne_renvoie_que_le_sms_en_vol(r)
    _le_notre_apres_un_kill_genere_chaque_cotisation_une_fois(r)
    _celery_avec_acks_late_ne_perd_rien_apres_un_kill(r)
    _le_rapport_a_une_ligne_par_travail_moteur_et_passe(r)
