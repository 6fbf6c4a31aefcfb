"""``unionflow demo``: the loader on a fresh database of the backend under test (figures, balanced books), and a
Wave payment opened by the demo member that completes through the simulator, whose signed webhook credits it."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import func, select

from tests.conftest import BACKEND, scratch_pg_database
from unionflow.app import create_app
from unionflow.config import Settings
from unionflow.demo import DEMO_PASSWORD, MEMBRES_PAR_MUTUELLE, MONTANT_COTISATION, charger
from unionflow.migrations.alembic import upgrade
from unionflow.models import Cotisation, LigneEcriture, MembreOrganisation, Paiement
from unionflow.wave.simulateur import SimulateurWave, serving

SECRET = "demo-test-secret"


@pytest.fixture(scope="module")
def wave_demo() -> Iterator[SimulateurWave]:
    with serving(SimulateurWave(webhook_secret=SECRET, webhook_url="http://demo/api/paiements/wave/webhook")) as sim:
        sim.launch_base = sim.url
        yield sim


@pytest.fixture(scope="module")
def demo_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    if BACKEND == "postgresql":
        with scratch_pg_database("unionflow_demo") as url:
            upgrade(url)
            yield url
    else:
        url = f"sqlite:///{tmp_path_factory.mktemp('demo') / 'demo.db'}"
        upgrade(url)
        yield url


@pytest.fixture(scope="module")
async def chargee(demo_url: str, wave_demo: SimulateurWave, tmp_path_factory: pytest.TempPathFactory
                  ) -> AsyncIterator[tuple[Any, Any]]:
    settings = Settings(database_url=demo_url, data_dir=Path(tmp_path_factory.mktemp("demo-data")),
                        public_base_url="http://demo", argon2_time_cost=1, argon2_memory_cost=1024,
                        wave_api_base_url=wave_demo.url, wave_api_key=wave_demo.api_key, wave_webhook_secret=SECRET,
                        wave_launch_origin=wave_demo.url)
    app = create_app(settings)
    demo = await charger(app)
    yield app, demo
    await app.state.engine.dispose()
    await app.state.principal_engine.dispose()


async def test_the_demo_federation_has_its_month(chargee: tuple[Any, Any]) -> None:
    app, demo = chargee
    assert len(demo.mutuelles) == 2
    async with app.state.sessionmaker() as db:
        for mutuelle in demo.mutuelles:
            org = uuid.UUID(mutuelle.id)
            membres = await db.scalar(select(func.count()).select_from(MembreOrganisation).where(
                MembreOrganisation.organisation_id == org))
            # 20 members (the member account among them) and the four officers.
            assert membres == MEMBRES_PAR_MUTUELLE + 4
            dues = (await db.execute(select(func.count(), func.sum(Cotisation.montant_du)).where(
                Cotisation.organisation_id == org))).one()
            assert dues[0] == MEMBRES_PAR_MUTUELLE + 1 and dues[1] == Decimal(MONTANT_COTISATION * 21)
            cash = (await db.execute(select(Paiement.statut, func.count(), func.sum(Paiement.montant)).where(
                Paiement.organisation_id == org, Paiement.methode == "ESPECES").group_by(Paiement.statut))).all()
            # 8 counter payments and the advance (3 months at once) confirmed; one declaration waiting.
            assert {row[0]: (row[1], row[2]) for row in cash} == {
                "VALIDE": (9, Decimal(MONTANT_COTISATION * 11)), "EN_ATTENTE": (1, Decimal(MONTANT_COTISATION))}
        debit, credit = (await db.execute(select(func.sum(LigneEcriture.debit), func.sum(LigneEcriture.credit)))).one()
        assert debit == credit and debit > 0


async def test_a_wave_payment_in_the_demo_completes_through_the_simulator(chargee: tuple[Any, Any],
                                                                          wave_demo: SimulateurWave) -> None:
    app, demo = chargee
    wave_demo.webhook_transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://demo") as client:
        login = await client.post("/api/auth/token", data={"grant_type": "password", "username": demo.membre_wave,
                                                           "password": DEMO_PASSWORD})
        assert login.status_code == 200, login.text
        membre = {"Authorization": f"Bearer {login.json()['access_token']}", "Idempotency-Key": "demo-wave-1"}
        opened = await client.put(f"/api/cotisations/{demo.cotisation_wave}/payer", headers=membre,
                                  json={"montant": str(MONTANT_COTISATION), "methodePaiement": "WAVE"})
        assert opened.status_code == 200, opened.text
        launch = opened.json()["declaration"]["waveLaunchUrl"]
        assert launch.startswith(f"{wave_demo.url}/c/")
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=wave_demo.app()),
                                     base_url=wave_demo.url) as simulateur:
            page = await simulateur.get(launch.removeprefix(wave_demo.url))
            assert page.status_code == 200 and "Payer" in page.text
            paid = await simulateur.post(launch.removeprefix(wave_demo.url) + "/payer")
            assert paid.status_code == 200 and "HTTP 200" in paid.text, paid.text
        dues = await client.get(f"/api/cotisations/{demo.cotisation_wave}", headers=membre)
        assert dues.status_code == 200, dues.text
        assert dues.json()["statut"] == "PAYEE" and dues.json()["montantPaye"] == f"{MONTANT_COTISATION}.00"
