"""The first run of a union in a real Chromium: `unionflow serve` on an EMPTY database (migrated and bootstrapped
by the server itself), the bootstrap administrator changes his password, then « Mise en route » leads him through
the federation, a mutual (one refused form on the way, its typed values kept), its officers, treasuries and
opening balances (approved by the president on « À approuver »), the Wave account, the dues scale and the member
import, until the page says the union is set up. Only the browser acts; nothing is seeded.

Skipped, with the reason printed at the end of the run, when chromium/chromedriver are absent."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.console import browser

REASON = browser.missing_browser()
pytestmark = pytest.mark.skipif(REASON is not None, reason=REASON or "")
ADMIN, BOOTSTRAP, NOUVEAU = "admin@unionflow.local", "Bootstrap-Mise-en-route-2026!", "Admin-Mise-en-route-2026!"
BUREAU = {"tresorier": ("fatou.sarr@example.sn", "Fatou", "Sarr", "TRESORIER"),
          "president": ("modou.diop@example.sn", "Modou", "Diop", "PRESIDENT")}
MOT_DE_PASSE_BUREAU = "Bureau-Mutuelle-2026!"


@pytest.fixture(scope="module")
def vide(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`unionflow serve` on an empty SQLite database: the server migrates it and creates the administrator."""
    scratch = tmp_path_factory.mktemp("mise_en_route")
    env = {**os.environ, "UNIONFLOW_DATABASE_URL": f"sqlite:///{scratch}/vide.db",
           "UNIONFLOW_DATA_DIR": str(scratch / "data"), "UNIONFLOW_PUBLIC_BASE_URL": "http://127.0.0.1",
           "UNIONFLOW_ARGON2_TIME_COST": "1", "UNIONFLOW_ARGON2_MEMORY_COST": "1024",
           "UNIONFLOW_LOG_LEVEL": "WARNING", "UNIONFLOW_BOOTSTRAP_ADMIN_EMAIL": ADMIN,
           "UNIONFLOW_BOOTSTRAP_ADMIN_PASSWORD": BOOTSTRAP}
    env.pop("UNIONFLOW_TEST_DATABASE", None)
    port = browser.free_port()
    base = f"http://127.0.0.1:{port}"
    unionflow = str(Path(sys.executable).with_name("unionflow"))
    server = subprocess.Popen([unionflow, "serve", "--host", "127.0.0.1", "--port", str(port)],
                              env=env, stdout=subprocess.DEVNULL)
    try:
        browser.wait_ready(base, server)
        yield base
    finally:
        server.terminate()
        server.wait(timeout=30)


@pytest.fixture
def chromium(tmp_path: Path) -> Iterator[Any]:
    driver = browser.chrome(tmp_path / "downloads")
    try:
        yield driver
    finally:
        driver.quit()


def css(driver: Any, selector: str) -> Any:
    return driver.find_element("css selector", selector)


def fill(driver: Any, **values: str) -> None:
    for name, value in values.items():
        field = css(driver, f"#{name}")
        field.clear()
        field.send_keys(value)


def submit(driver: Any, selector: str = "form.carte button") -> None:
    browser.navigated(driver, css(driver, selector).click)


def sign_in(driver: Any, base: str, email: str, password: str) -> None:
    driver.delete_all_cookies()
    driver.get(base + "/console/connexion")
    fill(driver, email=email, password=password)
    submit(driver)


def shot(driver: Any, name: str) -> None:
    """The page's weight on the wire (under 30 KB), axe-core (no serious or critical violation), then a screenshot
    at 360 px and at desk width (in docs/console when UNIONFLOW_CONSOLE_CAPTURES=1)."""
    assert browser.transferred(driver) < 30_000, name
    blocking = [v for v in browser.axe_violations(driver) if v["impact"] in browser.BLOCKING]
    assert blocking == [], (name, blocking)
    browser.SHOTS.mkdir(parents=True, exist_ok=True)
    driver.set_window_size(360, 800)
    driver.save_screenshot(str(browser.SHOTS / f"{name}-360.png"))
    driver.set_window_size(1280, 900)
    driver.save_screenshot(str(browser.SHOTS / f"{name}-bureau.png"))
    driver.set_window_size(360, 800)


def next_step(driver: Any, base: str, expected: str) -> None:
    """From « Mise en route », follow « Étape suivante », which must be ``expected``."""
    driver.get(base + "/console/mise-en-route")
    link = css(driver, "p.info a")
    assert link.text == expected, driver.page_source[:3000]
    browser.navigated(driver, link.click)


def test_first_run_from_an_empty_installation_to_the_member_import(chromium: Any, vide: str,
                                                                   tmp_path: Path) -> None:
    driver, base = chromium, vide
    sign_in(driver, base, ADMIN, BOOTSTRAP)
    assert driver.current_url.endswith("/console/mot-de-passe")  # the bootstrap password is changed first
    fill(driver, actuel=BOOTSTRAP, nouveau=NOUVEAU, confirmation=NOUVEAU)
    submit(driver)
    sign_in(driver, base, ADMIN, NOUVEAU)
    driver.get(base + "/console/mise-en-route")
    assert len(driver.find_elements("css selector", "ol.etapes span.ko")) == 7
    shot(driver, "mise-en-route")
    css(driver, "nav a[href='/console/mise-en-route']")  # reachable from the menu

    next_step(driver, base, "Créer la fédération")
    fill(driver, nom="Fédération des mutuelles de Ziguinchor")
    submit(driver)
    assert "Organisation créée" in driver.page_source

    next_step(driver, base, "Créer ses organisations")
    fill(driver, nom="Mutuelle des pêcheurs", ville="Ziguinchor", telephone="33 99")
    submit(driver)  # refused: not an E.164 number; the form comes back with what was typed
    assert css(driver, "[role=alert]").text and css(driver, "#ville").get_attribute("value") == "Ziguinchor"
    assert css(driver, "#nom").get_attribute("value") == "Mutuelle des pêcheurs"
    shot(driver, "organisation-refusee")
    fill(driver, telephone="+221339912345")
    submit(driver)
    assert "Organisation créée" in driver.page_source

    for email, prenom, nom, role in BUREAU.values():
        next_step(driver, base, "Nommer les responsables (président, trésorier)")
        fill(driver, email=email, prenom=prenom, nom=nom, mot_de_passe=MOT_DE_PASSE_BUREAU)
        css(driver, f"#n-{role}").click()
        if role == "PRESIDENT":
            shot(driver, "bureau")
        submit(driver, "form[action$='/bureau'] button")
        assert "Personne ajoutée au bureau" in driver.page_source

    next_step(driver, base, "Déclarer les trésoreries et saisir les soldes d'ouverture")
    for type_, nom, compte, decouvert in (("CAISSE", "Caisse du siège", "571", ""),
                                          ("BANQUE", "Banque BICIS", "5211", "50 000")):
        css(driver, f"#type option[value={type_}]").click()
        fill(driver, nom=nom, numero_compte=compte, decouvert=decouvert)
        submit(driver)
        assert "Trésorerie déclarée" in driver.page_source
    driver.execute_script("document.getElementById('date_debut').value = '2026-01-01'")
    soldes = driver.find_elements("css selector", "input[name^=solde_]")
    assert len(soldes) == 2
    soldes[0].send_keys("125 000")
    shot(driver, "installation-tresoreries")
    submit(driver, "form[action$='/a-nouveaux'] button")
    assert "une seconde personne" in driver.page_source

    sign_in(driver, base, BUREAU["president"][0], MOT_DE_PASSE_BUREAU)
    driver.get(base + "/console/a-approuver")
    browser.navigated(driver, css(driver, "main a[href='/console/ecritures-a-approuver']").click)
    submit(driver, "form[action*='/demandes/a-nouveaux/'] button")
    assert "Approuvée" in driver.page_source

    sign_in(driver, base, ADMIN, NOUVEAU)
    next_step(driver, base, "Enregistrer le compte Wave")
    fill(driver, libelle="Wave Business des pêcheurs", numero_telephone="+221771234567")
    submit(driver)
    assert "Compte Wave enregistré" in driver.page_source
    shot(driver, "installation-wave")

    next_step(driver, base, "Fixer les types et montants des cotisations")
    fill(driver, cotisations_bareme_mensuelle="2 500")
    submit(driver)
    assert css(driver, "#cotisations_bareme_mensuelle").get_attribute("value") == "2500"
    shot(driver, "installation-cotisations")

    driver.get(base + "/console/mise-en-route")
    assert css(driver, "p.info a").text == "Importer les membres"
    submit(driver, "form[action$='/contexte'] button")  # works in the mutual: its import
    assert driver.current_url.endswith("/console/import")
    fichier = tmp_path / "membres.csv"
    fichier.write_text("prénom;nom;email;téléphone\nAïssatou;Badji;aissatou.badji@example.sn;+221770000011\n",
                       encoding="utf-8")
    css(driver, "#fichier").send_keys(str(fichier))
    submit(driver)
    assert "Simulation" in driver.page_source
    submit(driver)
    assert "Import effectué" in driver.page_source

    driver.get(base + "/console/mise-en-route")
    assert "L'union est en route" in driver.page_source
    shot(driver, "mise-en-route-faite")
    assert not driver.find_elements("css selector", "ol.etapes span.ko")
