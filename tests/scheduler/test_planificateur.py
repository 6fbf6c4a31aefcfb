"""The scheduler: one run per due slot whatever the number of schedulers, each run recorded, and the history in
the monitoring API. Schedulers commit for real (``committed_db``), with engines of their own."""

from __future__ import annotations

import asyncio
import os
import time
import uuid
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta

from sqlalchemy import select, update

from unionflow.config import Settings
from unionflow.core.db import create_engine
from unionflow.core.jobs import Compteurs, Contexte, EchecJob, Job
from unionflow.models import ExecutionJob, PlanificationJob, RefreshToken
from unionflow.models.base import utcnow
from unionflow.registres import JOBS, Planificateur
from unionflow.scheduler.moteur import prochain_creneau

BASE = "/api/monitoring/jobs"


def _job(nom: str, body: Callable[[Contexte], Awaitable[Compteurs]], intervalle: int = 3600) -> Job:
    return Job(nom, f"test {nom}", lambda _s: intervalle, lambda _s: 0, body)


async def _make_due(session, nom: str) -> None:
    await session.execute(update(PlanificationJob).where(PlanificationJob.nom == nom)
                          .values(prochaine_execution=utcnow() - timedelta(seconds=1)))
    await session.commit()


async def _runs(session, nom: str) -> list[ExecutionJob]:
    await session.rollback()  # a fresh snapshot: the schedulers commit on their own connections
    rows = await session.execute(select(ExecutionJob).where(ExecutionJob.job == nom)
                                 .order_by(ExecutionJob.date_debut).execution_options(populate_existing=True))
    return list(rows.scalars())


def test_slots_are_aligned_so_every_host_computes_the_same():
    now = datetime(2026, 3, 4, 10, 7, 30, tzinfo=UTC)
    assert prochain_creneau(now, 60) == datetime(2026, 3, 4, 10, 8, tzinfo=UTC)
    assert prochain_creneau(now, 86400, 900) == datetime(2026, 3, 5, 0, 15, tzinfo=UTC)
    assert prochain_creneau(datetime(2026, 3, 4, 0, 10, tzinfo=UTC), 86400, 900) == \
        datetime(2026, 3, 4, 0, 15, tzinfo=UTC)
    # Strictly after: a run at the slot itself schedules the next one.
    assert prochain_creneau(datetime(2026, 3, 4, 0, 15, tzinfo=UTC), 86400, 900) == \
        datetime(2026, 3, 5, 0, 15, tzinfo=UTC)


async def test_two_schedulers_with_their_own_engines_run_a_due_job_once(app, committed_db, settings):
    calls: list[str] = []

    async def slow(ctx: Contexte) -> Compteurs:
        calls.append("run")
        await asyncio.sleep(0.05)  # both schedulers are in their claim while the winner runs
        return {"traitees": 7}

    job = _job("test-unique", slow)
    engines = [create_engine(settings), create_engine(settings)]
    try:
        schedulers = [Planificateur(engine, settings, [job], hote=f"hote-{i}") for i, engine in enumerate(engines)]
        await schedulers[0].preparer()
        await schedulers[1].preparer()
        for round_ in range(1, 6):
            await _make_due(committed_db, job.nom)
            started = await asyncio.gather(*(s.tick() for s in schedulers))
            await asyncio.gather(*(t for tasks in started for t in tasks))
            assert sorted(len(tasks) for tasks in started) == [0, 1]
            assert len(calls) == round_
            # Not due any more: nobody runs it again.
            assert [await s.tick() for s in schedulers] == [[], []]
    finally:
        for engine in engines:
            await engine.dispose()
    runs = await _runs(committed_db, job.nom)
    assert len(runs) == 5
    assert all(r.statut == "REUSSIE" and r.compteurs == {"traitees": 7} and r.declenchement == "PLANIFIE"
               for r in runs)
    assert all(r.date_fin is not None and r.date_fin >= r.date_debut and r.duree_ms is not None for r in runs)
    await committed_db.rollback()
    row = await committed_db.get(PlanificationJob, job.nom, populate_existing=True)
    assert row is not None and row.verrouillee_jusqua is None and row.prochaine_execution > utcnow()


async def test_a_running_job_is_not_started_again_and_a_failure_is_recorded(app, committed_db, settings):
    release = asyncio.Event()

    async def blocked(ctx: Contexte) -> Compteurs:
        await release.wait()
        raise RuntimeError("passerelle injoignable")

    job = _job("test-echec", blocked)
    first = Planificateur(app.state.engine, settings, [job], hote="a")
    second = Planificateur(app.state.engine, settings, [job], hote="b")
    await first.preparer()
    await _make_due(committed_db, job.nom)
    [task] = await first.tick()
    # Due again while the first run holds the lease: the other scheduler leaves it alone.
    await _make_due(committed_db, job.nom)
    assert await second.tick() == []
    [running] = await _runs(committed_db, job.nom)
    assert running.statut == "EN_COURS" and running.hote.startswith("a:")
    release.set()
    await task
    [failed] = await _runs(committed_db, job.nom)
    assert failed.statut == "ECHOUEE" and failed.message_erreur == "RuntimeError: passerelle injoignable"
    # Lease released: the slot that came due meanwhile runs now.
    release.clear()
    [retry] = await second.tick()
    release.set()
    await retry
    assert [r.hote[0] for r in await _runs(committed_db, job.nom)] == ["a", "b"]


async def test_a_job_reporting_failure_keeps_its_counts(app, committed_db, settings):
    async def partial(ctx: Contexte) -> Compteurs:
        raise EchecJob("Sauvegarde ECHOUEE: pg_dump introuvable", {"sauvegardes": 1, "supprimees": 0})

    job = _job("test-partiel", partial)
    scheduler = Planificateur(app.state.engine, settings, [job])
    await scheduler.preparer()
    await _make_due(committed_db, job.nom)
    await asyncio.gather(*await scheduler.tick())
    [run] = await _runs(committed_db, job.nom)
    assert run.statut == "ECHOUEE" and run.compteurs == {"sauvegardes": 1, "supprimees": 0}
    assert run.message_erreur == "Sauvegarde ECHOUEE: pg_dump introuvable"


async def test_disabled_jobs_are_not_scheduled(app, settings):
    off = settings.model_copy(update={"job_sauvegarder_secondes": 0, "job_surveiller_secondes": 0})
    names = [j.nom for j in Planificateur(app.state.engine, off).jobs]
    assert names == ["marquer-retards", "envoyer-notifications", "livrer-webhooks", "nettoyer", "retention-donnees",
                     "compacter-synthese", "compacter-soldes"]


async def test_the_retention_job_purges_expired_rows(app, committed_db, committed_factory, settings):
    actor = await committed_factory.actor(["USER"], with_membre=False)
    old = RefreshToken(user_id=actor.user.id, token_hash="a" * 64, family_id=actor.user.id,
                       expires_at=utcnow() - timedelta(days=3))
    live = RefreshToken(user_id=actor.user.id, token_hash="b" * 64, family_id=actor.user.id,
                        expires_at=utcnow() + timedelta(days=3))
    ancient = ExecutionJob(job="surveiller", declenchement="PLANIFIE", hote="h", statut="REUSSIE",
                           date_debut=utcnow() - timedelta(days=settings.planificateur_retention_jours + 1),
                           compteurs={})
    committed_db.add_all([old, live, ancient])
    await committed_db.commit()
    exports = settings.data_dir / "exports"
    exports.mkdir(parents=True, exist_ok=True)
    stale, fresh = exports / f"{uuid.uuid4()}.csv", exports / f"{uuid.uuid4()}.xlsx"
    stale.write_text("id\n"), fresh.write_text("id\n")
    aged = time.time() - (settings.export_retention_jours + 1) * 86400
    os.utime(stale, (aged, aged))
    nettoyer = next(j for j in JOBS if j.nom == "nettoyer")
    scheduler = Planificateur(app.state.engine, settings, [nettoyer])
    await scheduler.preparer()
    await _make_due(committed_db, "nettoyer")
    await asyncio.gather(*await scheduler.tick())
    [run] = await _runs(committed_db, "nettoyer")
    assert run.statut == "REUSSIE", run.message_erreur
    assert run.compteurs["jetonsRafraichissement"] == 1 and run.compteurs["executions"] == 1
    assert run.compteurs["fichiersExport"] == 1 and not stale.exists() and fresh.exists()
    remaining = (await committed_db.execute(select(RefreshToken.token_hash))).scalars().all()
    assert remaining == ["b" * 64]


async def test_in_process_scheduler_runs_due_jobs_in_the_app_lifespan(committed_db, settings):
    from unionflow.app import create_app

    tuned: Settings = settings.model_copy(update={
        "planificateur_integre": True, "planificateur_tick_seconds": 0.05, "job_marquer_retards_secondes": 0,
        "job_envoyer_notifications_secondes": 0, "job_sauvegarder_secondes": 0, "job_nettoyer_secondes": 0,
        "job_livrer_webhooks_secondes": 0, "job_compacter_synthese_secondes": 0,
        "job_retention_donnees_secondes": 0})
    committed_db.add(PlanificationJob(nom="surveiller", prochaine_execution=utcnow() - timedelta(minutes=1)))
    await committed_db.commit()
    embedded = create_app(tuned)
    try:
        async with embedded.router.lifespan_context(embedded):
            for _ in range(200):
                runs = await _runs(committed_db, "surveiller")
                if runs and runs[0].statut != "EN_COURS":
                    break
                await asyncio.sleep(0.05)
    finally:
        await embedded.state.engine.dispose()
    [run] = await _runs(committed_db, "surveiller")
    assert run.statut == "REUSSIE", run.message_erreur
    assert set(run.compteurs) == {"ouvertes", "fermees", "enErreur", "actives"}


async def test_history_and_schedule_in_the_monitoring_api(client, factory, db):
    now = utcnow()
    db.add_all([
        ExecutionJob(job="envoyer-notifications", declenchement="PLANIFIE", hote="h1:1", statut="REUSSIE",
                     date_debut=now - timedelta(minutes=2), date_fin=now, duree_ms=12,
                     compteurs={"envoyees": 3, "reportees": 0, "echouees": 1}),
        ExecutionJob(job="sauvegarder", declenchement="PLANIFIE", hote="h2:1", statut="ECHOUEE",
                     date_debut=now - timedelta(minutes=1), compteurs={}, message_erreur="disque plein"),
        PlanificationJob(nom="surveiller", prochaine_execution=now + timedelta(minutes=5),
                         verrouillee_jusqua=now + timedelta(minutes=30), verrouillee_par="h1:1:abc"),
    ])
    await db.flush()
    user = await factory.actor(["USER"])
    moderator = await factory.actor(["MODERATEUR"], with_membre=False)
    assert (await client.get(BASE)).status_code == 401
    assert (await client.get(BASE, headers=user.headers)).status_code == 403
    assert (await client.get(f"{BASE}/planification", headers=user.headers)).status_code == 403

    page = await client.get(BASE, headers=moderator.headers, params={"size": 1})
    assert page.status_code == 200, page.text
    body = page.json()
    assert body["totalElements"] == 2 and body["totalPages"] == 2
    assert body["content"][0]["job"] == "sauvegarder" and body["content"][0]["messageErreur"] == "disque plein"
    failed = (await client.get(BASE, headers=moderator.headers, params={"statut": "ECHOUEE"})).json()
    assert [r["job"] for r in failed["content"]] == ["sauvegarder"]
    sent = (await client.get(BASE, headers=moderator.headers, params={"job": "envoyer-notifications"})).json()
    assert sent["content"][0]["compteurs"] == {"envoyees": 3, "reportees": 0, "echouees": 1}
    assert sent["content"][0]["dureeMs"] == 12
    assert (await client.get(BASE, headers=moderator.headers, params={"job": "inconnu"})).status_code == 400

    schedule = (await client.get(f"{BASE}/planification", headers=moderator.headers)).json()
    by_job = {s["job"]: s for s in schedule}
    assert set(by_job) == {j.nom for j in JOBS}
    assert by_job["surveiller"]["enCoursPar"] == "h1:1:abc" and by_job["surveiller"]["intervalleSecondes"] == 300
    assert by_job["nettoyer"]["prochaineExecution"] is None


async def test_scheduled_runs_are_counted_in_metrics_and_logged(app, client, committed_db, settings, caplog):
    from tests.monitoring.test_metrics import scrape, value

    async def ok(ctx: Contexte) -> Compteurs:
        return {"traitees": 3}

    async def partial(ctx: Contexte) -> Compteurs:
        raise EchecJob("Sauvegarde ECHOUEE", {"sauvegardes": 0})

    jobs = [_job("test-metrics-ok", ok), _job("test-metrics-echec", partial)]
    scheduler = Planificateur(app.state.engine, settings, jobs)
    await scheduler.preparer()
    before = await scrape(client)
    for job in jobs:
        await _make_due(committed_db, job.nom)
    caplog.set_level("INFO", logger="unionflow.jobs")
    await asyncio.gather(*await scheduler.tick())
    after = await scrape(client)

    def delta(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    assert delta("unionflow_job_runs_total", job_name="test-metrics-ok", outcome="succes") == 1
    assert delta("unionflow_job_runs_total", job_name="test-metrics-echec", outcome="echec") == 1
    assert delta("unionflow_job_runs_total", job_name="test-metrics-echec", outcome="succes") == 0
    assert delta("unionflow_job_duration_seconds_count", job_name="test-metrics-ok") == 1
    lines = {r.job: r for r in caplog.records if r.name == "unionflow.jobs"}  # type: ignore[attr-defined]
    assert lines["test-metrics-ok"].outcome == "succes" and lines["test-metrics-ok"].counts == {"traitees": 3}
    assert lines["test-metrics-echec"].outcome == "echec" and lines["test-metrics-echec"].levelname == "ERROR"


async def test_nothing_is_claimed_while_a_restore_holds_the_maintenance_window(app, committed_db, settings):
    """A scheduled job or a background task must not start writing into a database being restored: claims are
    refused while the window is open, and resume once it closes."""
    from unionflow.core import maintenance

    calls: list[str] = []

    async def job_run(ctx: Contexte) -> Compteurs:
        calls.append("run")
        return {}

    job = _job("test-maintenance", job_run)
    scheduler = Planificateur(app.state.engine, settings, [job], hote="m")
    await scheduler.preparer()
    await _make_due(committed_db, job.nom)
    other = create_engine(settings)
    try:
        async with maintenance.window(other, "restauration de test"):
            assert await scheduler.tick() == []
            assert calls == [] and await _runs(committed_db, job.nom) == []
    finally:
        await other.dispose()
    await asyncio.gather(*await scheduler.tick())
    assert calls == ["run"]
