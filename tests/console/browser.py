"""A real Chromium (Debian's chromium + chromium-driver) driving a running `unionflow serve` on a scratch database."""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx

from tests.console.connexion import PASSWORD
from tests.factories import Factory
from tests.factories.cotisations import cotisation
from unionflow.auth import keys
from unionflow.config import Settings
from unionflow.core.db import create_engine, create_sessionmaker
from unionflow.core.passwords import hash_password
from unionflow.migrations.alembic import upgrade
from unionflow.models import MembreOrganisation, Versement

CHROMIUM = os.environ.get("UNIONFLOW_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("UNIONFLOW_CHROMEDRIVER", "/usr/bin/chromedriver")
# Screenshots and sizes go to docs/console when asked (UNIONFLOW_CONSOLE_CAPTURES=1: refreshing the docs), else
# to a scratch folder, so that `make test` leaves the working tree clean.
SHOTS = (Path(__file__).resolve().parents[2] / "docs" / "console" if os.environ.get("UNIONFLOW_CONSOLE_CAPTURES")
         else Path(tempfile.gettempdir()) / "unionflow-console-captures")


def missing_browser() -> str | None:
    for path in (CHROMIUM, CHROMEDRIVER):
        if not (Path(path).exists() or shutil.which(path)):
            return f"{path} absent: tests du navigateur ignorés (apt-get install chromium chromium-driver)"
    return None


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class World:
    base: str
    emails: dict[str, str]
    ids: dict[str, str]
    downloads: Path


async def seed(settings: Settings) -> tuple[dict[str, str], dict[str, str]]:
    from datetime import date

    engine = create_engine(settings)
    try:
        async with create_sessionmaker(engine)() as session:
            await keys.ensure_signing_key(session)
            await session.commit()
            make = Factory(session, settings, commit=True)
            a = await make.organisation(nom="Mutuelle de Pikine")
            b = await make.organisation(nom="Association de Rufisque")
            tresorier = await make.actor(["USER"], organisation=a, org_roles=["MEMBRE", "TRESORIER"])
            membre = await make.actor(["USER"], organisation=a, org_roles=["MEMBRE"])
            secretaire = await make.actor(["USER"], organisation=a, org_roles=["MEMBRE", "SECRETAIRE"])
            assert secretaire.membre is not None and membre.membre is not None
            session.add(MembreOrganisation(membre_id=secretaire.membre.id, organisation_id=b.id,
                                           roles=["MEMBRE", "SECRETAIRE"], date_debut=date.today()))
            # The other roles of the console, each on its own account (the accessibility pass signs in as each).
            president = await make.actor(["USER"], organisation=a, org_roles=["MEMBRE", "PRESIDENT"])
            commissaire = await make.actor(["USER"], organisation=a, org_roles=["COMMISSAIRE_AUX_COMPTES"])
            admin = await make.actor(["SUPER_ADMIN"], with_membre=False)
            autre = await make.membre(a, prenom="Ibrahima", nom="Faye")
            await make.membre(b, prenom="Coumba", nom="Thiam")
            for actor in (tresorier, membre, secretaire, president, commissaire, admin):
                actor.user.password_hash = hash_password(PASSWORD)
            due_cash = await cotisation(session, autre, a, 5000, libelle="Cotisation guichet")
            due_member = await cotisation(session, membre.membre, a, 3000, libelle="Cotisation déclarée")
            session.add(Versement(numero="VER-2026-0007", organisation_id=a.id, montant=Decimal("75000"), devise="XOF",
                                  mode="MANUEL", objet_type="AUTRE", motif="Achat de fournitures",
                                  beneficiaire_nom="Librairie Clairafrique", statut="EN_COURS",
                                  cle_idempotence="console-e2e-ver-7", cree_par="Trésorier adjoint"))
            await session.commit()
            emails = {"tresorier": tresorier.user.email, "membre": membre.user.email,
                      "secretaire": secretaire.user.email, "president": president.user.email,
                      "commissaire": commissaire.user.email, "admin": admin.user.email}
            ids = {"autre": str(autre.id), "due_cash": str(due_cash.id), "due_member": str(due_member.id),
                   "a": str(a.id), "b": str(b.id)}
            return emails, ids
    finally:
        await engine.dispose()


def wait_ready(base: str, server: subprocess.Popen[bytes], timeout: float = 300.0) -> None:
    # A readiness wait, not a timing goal: under a loaded host a first start (migrations, workers) takes minutes.
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if server.poll() is not None:
            raise RuntimeError("unionflow serve s'est arrêté au démarrage")
        try:
            if httpx.get(base + "/health/live", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    raise RuntimeError("unionflow serve n'a pas démarré à temps")


def serve(scratch: Path) -> Iterator[World]:
    env = {**os.environ, "UNIONFLOW_DATABASE_URL": f"sqlite:///{scratch}/console.db",
           "UNIONFLOW_DATA_DIR": str(scratch / "data"), "UNIONFLOW_PUBLIC_BASE_URL": "http://127.0.0.1",
           "UNIONFLOW_ARGON2_TIME_COST": "1", "UNIONFLOW_ARGON2_MEMORY_COST": "1024", "UNIONFLOW_LOG_LEVEL": "WARNING",
           "UNIONFLOW_BOOTSTRAP_ADMIN_PASSWORD": "Bootstrap-Console-2026!",
           # A real import of more than two lines runs as a task (run by the server's own scheduler, ticking
           # every second), so that the task page is exercised end to end.
           "UNIONFLOW_TACHE_SEUIL_IMPORT_LIGNES": "2", "UNIONFLOW_PLANIFICATEUR_TICK_SECONDS": "1"}
    env.pop("UNIONFLOW_TEST_DATABASE", None)
    settings = Settings(database_url=env["UNIONFLOW_DATABASE_URL"], data_dir=env["UNIONFLOW_DATA_DIR"],
                        public_base_url="http://127.0.0.1", argon2_time_cost=1, argon2_memory_cost=1024)
    upgrade(settings.database_url)
    emails, ids = asyncio.run(seed(settings))
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    unionflow = str(Path(sys.executable).with_name("unionflow"))
    server = subprocess.Popen([unionflow, "serve", "--host", "127.0.0.1", "--port", str(port)],
                              env=env, stdout=subprocess.DEVNULL)
    try:
        wait_ready(base, server)
        yield World(base, emails, ids, scratch / "downloads")
    finally:
        server.terminate()
        server.wait(timeout=30)


def chrome(downloads: Path) -> Any:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                 "--window-size=360,800", "--lang=fr-FR"):
        options.add_argument(flag)
    downloads.mkdir(parents=True, exist_ok=True)
    options.add_experimental_option("prefs", {"download.default_directory": str(downloads),
                                              "download.prompt_for_download": False})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.execute_cdp_cmd("Page.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(downloads)})
    return driver


def document_id(driver: Any) -> float:
    """The current document's identity: ``performance.timeOrigin`` is fixed at its creation, new for the next."""
    return float(driver.execute_script("return performance.timeOrigin"))


def navigated(driver: Any, action: Any, timeout: float = 120.0) -> None:
    """Do ``action`` (a click, a form submitted by script), then wait until the browser shows a *new* document,
    completely loaded.

    Why not ``staleness_of(the button)``: that condition polls the old element while Chromium swaps documents,
    and a command landing in that window fails with a plain ``WebDriverException`` ("unhandled inspector error:
    Node with given id does not belong to the document"), which the wait does not ignore: the test failed about
    once in three runs on a loaded machine, where the swap takes longest. Here the condition reads the new
    document (its ``timeOrigin``, its ``readyState``) and treats an error raised *during* the swap as "not yet",
    remembering it for the failure message if the page never comes.
    """
    before = document_id(driver)
    action()

    def arrived() -> bool:
        origin, state = driver.execute_script("return [performance.timeOrigin, document.readyState]")
        return float(origin) != before and state == "complete"

    until(arrived, timeout, "pas de nouvelle page")


def until(condition: Any, timeout: float = 120.0, what: str = "condition non remplie") -> None:
    """Poll ``condition`` until true. An error raised while the browser swaps documents (a page loading, a page
    reloading itself) means "not yet", not a failure: it is kept for the message if the time runs out."""
    from selenium.common.exceptions import InvalidSessionIdException, NoSuchWindowException, WebDriverException

    end, last = time.monotonic() + timeout, None
    while time.monotonic() < end:
        try:
            if condition():
                return
        except (InvalidSessionIdException, NoSuchWindowException):
            raise  # the browser is gone: not a page in transit
        except WebDriverException as error:
            last = error
        time.sleep(0.1)
    raise AssertionError(f"{what} après {timeout:.0f} s (dernière erreur: {last})")


def transferred(driver: Any) -> int:
    """Bytes the page cost on the wire (document and every sub-resource), from the browser's own timings."""
    return int(driver.execute_script(
        "const n = performance.getEntriesByType('navigation')[0];"
        "return (n ? n.transferSize : 0) + performance.getEntriesByType('resource')"
        ".reduce((s, r) => s + r.transferSize, 0);"))


AXE = Path(__file__).with_name("vendor") / "axe.min.js"
# axe-core's own impact levels; "serious" and "critical" block a keyboard or screen-reader user.
BLOCKING = ("serious", "critical")


def axe_violations(driver: Any) -> list[dict[str, Any]]:
    """Runs axe-core (vendored, injected by the driver: the pages' CSP forbids scripts, the DevTools protocol is
    not subject to it) on the current page; returns every violation (id, impact, help, nodes)."""
    driver.set_script_timeout(180)
    driver.execute_script(AXE.read_text(encoding="utf-8"))
    found: list[dict[str, Any]] = driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "axe.run(document, {resultTypes: ['violations']}).then(r => done(r.violations.map("
        "v => ({id: v.id, impact: v.impact, help: v.help,"
        "            nodes: v.nodes.map(n => n.target.join(' ') + ': ' + n.failureSummary)}))))"
        ".catch(e => done([{id: 'axe-error', impact: 'critical', help: String(e), nodes: []}]));")
    return found
