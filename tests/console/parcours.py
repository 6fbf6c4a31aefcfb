"""Steps a person takes in the console, shared by the browser tests that act out a union's life in Chromium
(the first run, the whole month): each step is what a person clicks and types, nothing seeded, no API call.

``photo`` receives the name of a screen worth a screenshot at the moment a person looks at it (the first-run test
takes them for docs/console; the month test passes nothing)."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from tests.conftest import BACKEND, scratch_pg_database
from tests.console import browser

Photo = Callable[[str], None] | None


@contextlib.contextmanager
def empty_server(scratch: Path, admin: str, bootstrap: str) -> Iterator[str]:
    """`unionflow serve` on an EMPTY database of the suite's backend (SQLite file, or a PostgreSQL database of its
    own): the server migrates it and creates the bootstrap administrator. Yields the base URL."""
    with contextlib.ExitStack() as stack:
        url = (stack.enter_context(scratch_pg_database("unionflow_console")) if BACKEND == "postgresql"
               else f"sqlite:///{scratch}/vide.db")
        env = {**os.environ, "UNIONFLOW_DATABASE_URL": url, "UNIONFLOW_DATA_DIR": str(scratch / "data"),
               "UNIONFLOW_PUBLIC_BASE_URL": "http://127.0.0.1", "UNIONFLOW_ARGON2_TIME_COST": "1",
               "UNIONFLOW_ARGON2_MEMORY_COST": "1024", "UNIONFLOW_LOG_LEVEL": "WARNING",
               "UNIONFLOW_BOOTSTRAP_ADMIN_EMAIL": admin, "UNIONFLOW_BOOTSTRAP_ADMIN_PASSWORD": bootstrap}
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


def change_first_password(driver: Any, base: str, email: str, bootstrap: str, nouveau: str) -> None:
    """The bootstrap administrator's first sign-in leads to the password change, nothing else."""
    sign_in(driver, base, email, bootstrap)
    assert driver.current_url.endswith("/console/mot-de-passe")
    fill(driver, actuel=bootstrap, nouveau=nouveau, confirmation=nouveau)
    submit(driver)
    sign_in(driver, base, email, nouveau)


def create_federation(driver: Any, base: str, nom: str) -> None:
    next_step(driver, base, "Créer la fédération")
    fill(driver, nom=nom)
    submit(driver)
    assert "Organisation créée" in driver.page_source


def add_to_bureau(driver: Any, base: str, email: str, prenom: str, nom: str, password: str,
                  role: str | None, photo: Photo = None) -> None:
    """An account for a person of the active organisation's mutual: an officer (``role``) or a plain member."""
    next_step(driver, base, "Nommer les responsables (président, trésorier)")
    add_person(driver, email, prenom, nom, password, role, photo)


def add_person(driver: Any, email: str, prenom: str, nom: str, password: str, role: str | None,
               photo: Photo = None) -> None:
    """On the organisation's « Bureau » page: one more account, with ``role`` ticked (or only MEMBRE)."""
    fill(driver, email=email, prenom=prenom, nom=nom, mot_de_passe=password)
    if role:
        css(driver, f"#n-{role}").click()
    if photo:
        photo("bureau")
    submit(driver, "form[action$='/bureau'] button")
    assert "Personne ajoutée au bureau" in driver.page_source


def declare_treasuries(driver: Any, base: str, solde_caisse: str, photo: Photo = None) -> None:
    """A cash box and a bank (overdraft 50 000), then the cash box's opening balance on 1 January, which waits for a
    second person."""
    next_step(driver, base, "Déclarer les trésoreries et saisir les soldes d'ouverture")
    for type_, nom, compte, decouvert in (("CAISSE", "Caisse du siège", "571", ""),
                                          ("BANQUE", "Banque BICIS", "5211", "50 000")):
        css(driver, f"#type option[value={type_}]").click()
        fill(driver, nom=nom, numero_compte=compte, decouvert=decouvert)
        submit(driver)
        assert "Trésorerie déclarée" in driver.page_source
    driver.execute_script("document.getElementById('date_debut').value = '2026-01-01'")
    soldes = driver.find_elements("css selector", "label[for^=solde_]")
    assert len(soldes) == 2
    caisse = next(label for label in soldes if "Caisse du siège" in label.text)
    css(driver, "#" + caisse.get_attribute("for")).send_keys(solde_caisse)
    if photo:
        photo("installation-tresoreries")
    submit(driver, "form[action$='/a-nouveaux'] button")
    assert "une seconde personne" in driver.page_source


def approve_opening_balances(driver: Any, base: str, email: str, password: str) -> None:
    sign_in(driver, base, email, password)
    driver.get(base + "/console/a-approuver")
    browser.navigated(driver, css(driver, "main a[href='/console/ecritures-a-approuver']").click)
    submit(driver, "form[action*='/demandes/a-nouveaux/'] button")
    assert "Approuvée" in driver.page_source


def register_wave(driver: Any, base: str, photo: Photo = None) -> None:
    next_step(driver, base, "Enregistrer le compte Wave")
    fill(driver, libelle="Wave Business des pêcheurs", numero_telephone="+221771234567")
    submit(driver)
    assert "Compte Wave enregistré" in driver.page_source
    if photo:
        photo("installation-wave")


def set_monthly_dues(driver: Any, base: str, montant: str, photo: Photo = None) -> None:
    next_step(driver, base, "Fixer les types et montants des cotisations")
    fill(driver, cotisations_bareme_mensuelle=montant)
    submit(driver)
    if photo:
        photo("installation-cotisations")


def import_members(driver: Any, base: str, fichier: Path, lignes: str, secretaire: bool = False) -> None:
    """The member import of a mutual, simulated then run: reached by the administrator from « Mise en route »'s
    last step, or by the mutual's secretary (one organisation: no chooser) from her menu."""
    if secretaire:
        driver.get(base + "/console/import")
    else:
        driver.get(base + "/console/mise-en-route")
        assert css(driver, "p.info a").text == "Importer les membres"
        submit(driver, "form[action$='/contexte'] button")
    assert driver.current_url.endswith("/console/import")
    fichier.write_text("prénom;nom;email;téléphone\n" + lignes, encoding="utf-8")
    css(driver, "#fichier").send_keys(str(fichier))
    submit(driver)
    assert "Simulation" in driver.page_source
    submit(driver)
    assert "Import effectué" in driver.page_source


def choose(driver: Any, selector: str, text: str) -> None:
    """Pick the option of a <select> whose visible text starts with ``text``."""
    from selenium.webdriver.support.ui import Select

    select = Select(css(driver, selector))
    matching = [o for o in select.options if o.text.strip().startswith(text)]
    assert matching, (selector, text, [o.text for o in select.options])
    select.select_by_value(matching[0].get_attribute("value"))
