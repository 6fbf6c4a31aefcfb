"""End to end in a real Chromium against a running `unionflow serve` (scratch SQLite database, free port).

Skipped, with the reason printed at the end of the run, when chromium/chromedriver are absent."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from tests.console import browser
from tests.console.connexion import PASSWORD

REASON = browser.missing_browser()
pytestmark = pytest.mark.skipif(REASON is not None, reason=REASON or "")
SIZES: dict[str, int] = {}


def by(css: str) -> tuple[str, str]:
    return ("css selector", css)


def sign_in(driver: Any, world: browser.World, who: str) -> None:
    driver.get(world.base + "/console/")
    driver.find_element(*by("#email")).send_keys(world.emails[who])
    driver.find_element(*by("#password")).send_keys(PASSWORD)
    submit(driver, "form.carte button")


def submit(driver: Any, css: str) -> None:
    """Click and wait for the next page (a click returns before the browser has navigated)."""
    button = driver.find_element(*by(css))
    browser.navigated(driver, button.click)


def shot(driver: Any, name: str) -> None:
    browser.SHOTS.mkdir(parents=True, exist_ok=True)
    driver.set_window_size(360, 800)
    driver.save_screenshot(str(browser.SHOTS / f"{name}-360.png"))
    driver.set_window_size(1280, 900)
    driver.save_screenshot(str(browser.SHOTS / f"{name}-bureau.png"))
    driver.set_window_size(360, 800)


def record(name: str, size: int) -> None:
    SIZES[name] = size
    browser.SHOTS.mkdir(parents=True, exist_ok=True)
    out = browser.SHOTS / "tailles.json"
    known = json.loads(out.read_text()) if out.exists() else {}
    known[name] = size
    out.write_text(json.dumps(known, indent=1, sort_keys=True) + "\n")


def test_treasurer_records_cash_and_downloads_the_receipt(driver, world, telechargements):
    driver.get(world.base + "/console/connexion")
    first = browser.transferred(driver)
    record("premiere page (connexion, CSS compris)", first)
    assert first < 100_000
    shot(driver, "connexion")
    sign_in(driver, world, "tresorier")
    assert "Accueil" in driver.find_element(*by("h1")).text  # what needs doing now; the board is one click away
    driver.get(world.base + "/console/tresorerie")
    assert "Trésorerie" in driver.find_element(*by("h1")).text
    later = browser.transferred(driver)
    record("tableau de bord (CSS en cache)", later)
    assert later < 30_000
    assert "Librairie Clairafrique" in driver.page_source  # a payout to approve, on the board
    shot(driver, "tresorerie")
    driver.get(world.base + "/console/versements")
    shot(driver, "versements")
    driver.get(f"{world.base}/console/membres/{world.ids['autre']}")
    # Said in full when it fails: the page the treasurer got instead of the member's (once under load: unexplained).
    assert driver.find_elements(*by("a.bouton")), driver.find_element(*by("body")).text[:1500]
    submit(driver, "a.bouton")  # Encaisser un paiement
    shot(driver, "encaisser")
    submit(driver, "form.carte button")  # Enregistrer et émettre le reçu
    assert "Paiement" in driver.find_element(*by("h1")).text
    record("paiement enregistré", browser.transferred(driver))
    shot(driver, "paiement")
    driver.find_element(*by("#recu")).click()
    end = time.monotonic() + 60  # a download has no page to wait for: wait for the file itself
    while time.monotonic() < end and not list(telechargements.glob("recu-*.pdf")):
        time.sleep(0.2)
    pdfs = list(telechargements.glob("recu-*.pdf"))
    assert pdfs and pdfs[0].read_bytes().startswith(b"%PDF")


def test_member_declares_and_the_treasurer_confirms(driver, world):
    sign_in(driver, world, "membre")
    driver.get(f"{world.base}/console/moi/cotisations/{world.ids['due_member']}/declarer")
    driver.find_element(*by("#reference")).send_keys("BORD-2026-7")
    shot(driver, "declarer")
    submit(driver, "form.carte button")
    assert "Paiement déclaré" in driver.page_source
    shot(driver, "moi")
    driver.delete_all_cookies()
    sign_in(driver, world, "tresorier")
    driver.get(world.base + "/console/declarations")
    shot(driver, "declarations")
    submit(driver, "form[action$='/confirmer'] button")
    assert "Validé" in driver.page_source



def test_member_reads_the_notice_naming_his_organisation_before_consenting(driver, world):
    """« Mes données »: the art. 58 notice of each purpose, rendered for the member's organisation (the controller
    it names), one paragraph per item; opened for the screenshot."""
    sign_in(driver, world, "membre")
    driver.get(world.base + "/console/moi/donnees")
    assert "Mes données" in driver.find_element(*by("h1")).text
    driver.execute_script("document.querySelectorAll('main details').forEach(d => d.open = true)")
    texte = driver.find_element(*by("body")).text
    assert "Responsable du traitement:" in texte and "Durée de conservation:" in texte, texte[:1500]
    shot(driver, "mes-donnees")

def test_secretary_sees_the_dry_run_report(driver, world, tmp_path: Path):
    sign_in(driver, world, "secretaire")
    # Two organisations: the console asks for the active one first (the API's 400 naming the header).
    driver.get(world.base + "/console/import")
    assert "/console/contexte" in driver.current_url
    shot(driver, "contexte")
    from selenium.webdriver.support.ui import Select

    Select(driver.find_element(*by("#organisation"))).select_by_value(world.ids["a"])
    submit(driver, "form.carte button")
    fichier = tmp_path / "membres.csv"
    fichier.write_text("prénom;nom;email;téléphone\nMariama;Ba;mariama.ba@example.sn;+221770000001\n"
                       ";;pas-un-email;12\nOusmane;Sow;ousmane.sow@example.sn;+221770000002\n", encoding="utf-8")
    driver.get(world.base + "/console/import")
    driver.find_element(*by("#fichier")).send_keys(str(fichier))
    submit(driver, "form.carte button")
    rows = driver.find_elements(*by("#rapport tbody tr"))
    assert len(rows) == 3 and driver.find_elements(*by("tr.refus"))
    assert "Simulation" in driver.page_source
    shot(driver, "import")
    # The real run (over the server's two-line threshold) is a task: its page reloads itself until it is done.
    submit(driver, "form.carte button")
    assert "/console/taches/" in driver.current_url
    shot(driver, "tache")
    # The page's own <meta refresh> reloads it; the test only reads its title, between reloads.
    browser.until(lambda: "Terminée" in driver.find_element(*by("h1")).text, 120, "tâche non terminée")
    assert driver.find_element(*by("#progression")).get_attribute("value") == "100"
    shot(driver, "tache-terminee")


def test_chooser_changes_what_is_listed(driver, world):
    from selenium.webdriver.support.ui import Select

    sign_in(driver, world, "secretaire")
    for org, present, absent in (("a", "Faye", "Thiam"), ("b", "Thiam", "Faye")):
        driver.get(world.base + "/console/contexte?suite=/console/membres")
        Select(driver.find_element(*by("#organisation"))).select_by_value(world.ids[org])
        submit(driver, "form.carte button")
        assert present in driver.page_source and absent not in driver.page_source
    shot(driver, "membres")


def test_member_gets_404_for_another_member_and_csrf_less_post_is_refused(driver, world):
    sign_in(driver, world, "membre")
    driver.get(f"{world.base}/console/membres/{world.ids['autre']}")
    assert "Page introuvable" in driver.find_element(*by("h1")).text
    shot(driver, "introuvable")
    # A form with no CSRF token, posted from the page itself (same origin, the session cookie goes along).
    browser.navigated(driver, lambda: driver.execute_cdp_cmd("Runtime.evaluate", {"expression": (
        "const f = document.createElement('form'); f.method = 'post';"
        f"f.action = '/console/moi/cotisations/{world.ids['due_member']}/declarer';"
        "const i = document.createElement('input'); i.name = 'montant'; i.value = '1'; f.appendChild(i);"
        "document.body.appendChild(f); f.submit();")}))
    assert "CSRF" in driver.page_source


def test_works_under_slow_3g(driver, world):
    driver.execute_cdp_cmd("Network.enable", {})
    # Chrome DevTools' "Slow 3G" preset: 400 ms latency (×5 as DevTools applies it), ~50 KB/s down.
    driver.execute_cdp_cmd("Network.emulateNetworkConditions", {
        "offline": False, "latency": 2000, "downloadThroughput": 50_000, "uploadThroughput": 50_000})
    started = time.monotonic()
    sign_in(driver, world, "membre")
    assert "Accueil" in driver.find_element(*by("h1")).text
    record("secondes sous 3G lent (connexion + accueil)", round(time.monotonic() - started))


NEW_SCREENS = (("/aides", "aides"), ("/comptabilite", "comptabilité (états, verrouillage)"),
               ("/clotures", "clôture mensuelle"), ("/evenements", "événements"),
               ("/cotisations/generer", "génération des cotisations"), ("/exports", "exports"),
               ("/annulations", "annulations et remboursements"), ("/wave/releves", "rapprochement Wave"),
               ("/federation", "fédération (consolidation)"),
               ("/tresoreries", "trésoreries et virements internes"))
# Screenshot file name of each (ASCII).
SHOT_NAMES = {"/aides": "aides", "/comptabilite": "comptabilite", "/clotures": "clotures",
              "/evenements": "evenements", "/cotisations/generer": "generation", "/exports": "exports",
              "/annulations": "annulations", "/wave/releves": "releves-wave", "/federation": "federation",
              "/tresoreries": "tresoreries"}


def test_main_screens_have_no_serious_accessibility_violation(driver, world):
    """axe-core on the main screens of each person: no serious or critical violation (labels, contrast,
    landmarks, language)."""
    from selenium.webdriver.support.ui import Select

    checked: dict[str, list[dict[str, Any]]] = {}

    def check(name: str) -> None:
        checked[name] = browser.axe_violations(driver)

    # The checker itself finds what it must: a page without a language and an image without text.
    driver.get("data:text/html,<html><body><img src='x.png'><p>Sans langue</p></body></html>")
    assert {"html-has-lang", "image-alt"} <= {v["id"] for v in browser.axe_violations(driver)}
    driver.get(world.base + "/console/connexion")
    check("connexion")
    sign_in(driver, world, "tresorier")
    check("accueil")
    driver.get(world.base + "/console/tresorerie")
    check("tableau de bord")
    driver.get(f"{world.base}/console/membres/{world.ids['autre']}")
    check("fiche d'un membre")
    driver.get(f"{world.base}/console/membres/{world.ids['autre']}/encaisser")
    check("encaisser (formulaire de paiement)")
    driver.get(f"{world.base}/console/versements")
    check("versements à approuver")
    # The screens added later (payouts and aid, accounting, closing, events, long work): no blocking violation
    # either, and each under the 30 KB of a later page (CSS cached), as the browser counts it.
    for path, name in NEW_SCREENS:
        driver.get(f"{world.base}/console{path}")
        check(name)
        record(name, browser.transferred(driver))
        assert SIZES[name] < 30_000, (name, SIZES[name])
        shot(driver, SHOT_NAMES[path])  # leaves the window 360 px wide
        # Usable on a phone: nothing wider than the screen (a wide table scrolls inside its own box).
        width = driver.execute_script("return document.documentElement.scrollWidth")
        assert width <= 360, (name, width)
    driver.delete_all_cookies()
    sign_in(driver, world, "secretaire")
    driver.get(world.base + "/console/contexte?suite=/console/membres")
    check("organisation et rôle")
    Select(driver.find_element(*by("#organisation"))).select_by_value(world.ids["a"])
    submit(driver, "form.carte button")
    check("liste des membres")
    driver.get(world.base + "/console/import")
    check("import")
    driver.delete_all_cookies()
    sign_in(driver, world, "membre")
    check("mon compte")
    assert len(checked) == 10 + len(NEW_SCREENS)
    browser.SHOTS.mkdir(parents=True, exist_ok=True)
    (browser.SHOTS / "axe.json").write_text(json.dumps(checked, indent=1, ensure_ascii=False) + "\n")
    failing = {name: [v for v in found if v["impact"] in browser.BLOCKING] for name, found in checked.items()}
    assert not any(failing.values()), json.dumps(failing, indent=1, ensure_ascii=False)
