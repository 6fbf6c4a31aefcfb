"""axe-core on every screen of every role, in a real Chromium: the administrator, the treasurer, the secretary,
the president, the auditor and the member each sign in, then every screen of their own menu (navigation.NAV as
the page renders it for them) and the main detail pages they may open are checked; a serious or critical
violation fails, named with its page and its elements, and so does a screen over 30 KB on the wire (style sheet
cached). One server, one browser per role. With UNIONFLOW_CONSOLE_CAPTURES=1 every screen is also captured.

Skipped, with the reason printed at the end of the run, when chromium/chromedriver are absent."""

from __future__ import annotations

import json
import os
import re
from typing import Any

import pytest

from tests.console import browser
from tests.console.test_browser import by, sign_in, submit

REASON = browser.missing_browser()
pytestmark = pytest.mark.skipif(REASON is not None, reason=REASON or "")
# The detail pages of each role, beyond its menu ({a}: its organisation, {autre}: a member, {due}: his dues).
DETAILS: dict[str, tuple[str, ...]] = {
    "admin": ("/organisations", "/organisations/nouvelle", "/organisations/{a}", "/organisations/{a}/bureau",
              "/organisations/{a}/tresoreries", "/organisations/{a}/wave", "/organisations/{a}/parametres",
              "/organisations/{a}/cotisations", "/utilisateurs", "/contexte"),
    "tresorier": ("/membres/{autre}", "/membres/{autre}/encaisser", "/organisations/{a}/tresoreries",
                  "/organisations/{a}/wave", "/ecritures-a-approuver"),
    "secretaire": ("/membres/{autre}", "/membres?q=Faye", "/contexte"),
    "president": ("/membres/{autre}",),
    "commissaire": ("/organisations/{a}/tresoreries",),
    "membre": ("/moi/cotisations/{due}/declarer", "/moi/aides", "/moi/preferences"),
}
ERREURS = ("Accès refusé", "Page introuvable")


def _pages(driver: Any, world: browser.World, role: str) -> list[str]:
    menu = {a.get_attribute("href").split("#")[0] for a in driver.find_elements(*by("nav a"))}
    ids = {"a": world.ids["a"], "autre": world.ids["autre"], "due": world.ids["due_member"]}
    details = {world.base + "/console" + path.format(**ids) for path in DETAILS[role]}
    return sorted(u for u in menu | details if u.startswith(world.base) and "deconnexion" not in u)


def _choose_organisation(driver: Any, world: browser.World) -> None:
    """Who holds roles in several organisations chooses one first (the secretary): her screens then show it."""
    from selenium.webdriver.support.ui import Select

    driver.get(world.base + "/console/contexte?suite=/console/")
    Select(driver.find_element(*by("#organisation"))).select_by_value(world.ids["a"])
    submit(driver, "form.carte button")


def _capture(driver: Any, role: str, path: str, title: str) -> None:
    """When the docs are refreshed (UNIONFLOW_CONSOLE_CAPTURES=1), every screen at 360 px and at desk width in
    docs/console/ecrans/, named by role and path, and listed in its index (docs/console/ecrans/index.json)."""
    if not os.environ.get("UNIONFLOW_CONSOLE_CAPTURES"):
        return
    slug = re.sub(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", "id", path)
    slug = re.sub(r"[^a-z0-9]+", "-", slug.removeprefix("/console").lower()).strip("-") or "accueil"
    folder = browser.SHOTS / "ecrans"
    folder.mkdir(parents=True, exist_ok=True)
    for width, suffix in ((360, "360"), (1280, "bureau")):
        driver.set_window_size(width, 900)
        driver.save_screenshot(str(folder / f"{role}-{slug}-{suffix}.png"))
    driver.set_window_size(360, 800)
    index = folder / "index.json"
    known = json.loads(index.read_text()) if index.exists() else {}
    known[f"{role}-{slug}"] = {"role": role, "chemin": path, "titre": title}
    index.write_text(json.dumps(known, indent=1, ensure_ascii=False, sort_keys=True) + "\n")
    (folder / "README.md").write_text(sommaire(known))


def sommaire(known: dict[str, dict[str, str]]) -> str:
    """docs/console/ecrans/README.md: every captured screen by role, its title and its two widths."""
    lignes = ["# Écrans de la console, par rôle", "",
              "Capturés par `tests/console/test_browser_axe.py` (`UNIONFLOW_CONSOLE_CAPTURES=1`), à 360 px et sur "
              "un poste de bureau (1280 px); la liste est `index.json`. Un administrateur de l'union sans "
              "organisation choisie voit le choix de l'organisation sur les pages d'une organisation."]
    for role in sorted({v["role"] for v in known.values()}):
        lignes += ["", f"## {role}", "", "| écran | chemin | 360 px | bureau |", "|---|---|---|---|"]
        lignes += [f"| {v['titre']} | `{v['chemin']}` | [360]({cle}-360.png) | [bureau]({cle}-bureau.png) |"
                   for cle, v in sorted(known.items()) if v["role"] == role]
    return "\n".join(lignes) + "\n"


@pytest.mark.parametrize("role", list(DETAILS))
def test_every_screen_of_every_role_has_no_serious_accessibility_violation(driver, world, role):
    sign_in(driver, world, role)
    if role == "secretaire":
        _choose_organisation(driver, world)
    driver.get(world.base + "/console/")
    pages = _pages(driver, world, role)
    assert len(pages) >= len(DETAILS[role]) + 1, pages
    failing: dict[str, list[dict[str, Any]]] = {}
    lourdes: dict[str, int] = {}
    for url in [world.base + "/console/", *pages]:
        driver.get(url)
        title = driver.find_element(*by("h1")).text
        assert title not in ERREURS, (role, url, title)  # a screen this role really opens
        # Every screen under 30 KB on the wire once the style sheet is cached (the home page loaded it).
        poids = browser.transferred(driver)
        if poids >= 30_000:
            lourdes[url.removeprefix(world.base)] = poids
        blocking = [v for v in browser.axe_violations(driver) if v["impact"] in browser.BLOCKING]
        if blocking:
            failing[url.removeprefix(world.base)] = blocking
        _capture(driver, role, url.removeprefix(world.base), title)
    assert not failing, json.dumps(failing, indent=1, ensure_ascii=False)
    assert not lourdes, lourdes
