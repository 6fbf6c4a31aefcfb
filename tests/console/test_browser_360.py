"""At 360 px, in a real Chromium: every screen of the member's and the treasurer's menus fits the screen (nothing
scrolls sideways: tables are cards), and the pay button, the confirm button and the amounts are on screen.

Skipped, with the reason printed at the end of the run, when chromium/chromedriver are absent."""

from __future__ import annotations

from typing import Any

import pytest

from tests.console import browser
from tests.console.test_browser import by, shot, sign_in

REASON = browser.missing_browser()
pytestmark = pytest.mark.skipif(REASON is not None, reason=REASON or "")
LARGEUR = 360
# What sticks out of the screen: the document wider than the window, or an element whose box ends past its right.
DEPASSE = ("const w = document.documentElement.clientWidth;"
           "return [document.documentElement.scrollWidth, Array.from(document.querySelectorAll('body *'))"
           ".filter(e => e.getBoundingClientRect().right > w + 0.5 && e.checkVisibility())"
           ".map(e => e.tagName + '.' + e.className + ': ' + (e.textContent || '').trim().slice(0, 40))]")


def _liens_du_menu(driver: Any) -> list[str]:
    return sorted({a.get_attribute("href") for a in driver.find_elements(*by("nav a"))})


def _tient(driver: Any, ou: str) -> None:
    largeur, dehors = driver.execute_script(DEPASSE)
    assert largeur <= LARGEUR and not dehors, (ou, largeur, dehors[:5])


def _visible(driver: Any, css: str) -> None:
    """Every element ``css`` finds is displayed and lies within the screen's width."""
    found = driver.find_elements(*by(css))
    assert found, css
    for element in found:
        box = driver.execute_script("const r = arguments[0].getBoundingClientRect(); return [r.left, r.right]",
                                    element)
        assert element.is_displayed() and box[0] >= 0 and box[1] <= LARGEUR, (css, element.text, box)


def _parcourir(driver: Any, world: browser.World, extra: tuple[str, ...]) -> list[str]:
    pages = _liens_du_menu(driver) + [world.base + path for path in extra]
    for url in pages:
        driver.get(url)
        _tient(driver, url)
    return pages


def test_the_member_screens_fit_360_px_with_the_pay_button_and_amounts_on_screen(driver, world):
    driver.set_window_size(LARGEUR, 800)
    sign_in(driver, world, "membre")
    assert "Accueil" in driver.find_element(*by("h1")).text
    _tient(driver, "accueil")
    shot(driver, "accueil-membre")
    pages = _parcourir(driver, world, (f"/console/moi/cotisations/{world.ids['due_member']}/declarer",))
    assert any(p.endswith("/console/moi") for p in pages)
    driver.get(world.base + "/console/moi")
    _visible(driver, "form[action$='/wave'] button")  # « Payer par Wave »
    _visible(driver, "td.n")  # what is left to pay
    shot(driver, "moi-cartes")
    assert "3\u202f000" in driver.find_element(*by("td.n")).text


def test_the_treasurer_screens_fit_360_px_with_actions_and_amounts_on_screen(driver, world):
    driver.set_window_size(LARGEUR, 800)
    sign_in(driver, world, "tresorier")
    _tient(driver, "accueil")
    shot(driver, "accueil-tresorier")
    _parcourir(driver, world, (f"/console/membres/{world.ids['autre']}",
                               f"/console/membres/{world.ids['autre']}/encaisser"))
    driver.get(f"{world.base}/console/membres/{world.ids['autre']}")
    _visible(driver, "a.bouton")  # Encaisser un paiement
    _visible(driver, "td.n")
    driver.get(world.base + "/console/versements")
    _visible(driver, "section.carte h3")  # the payout's number, amount and payee
    assert "75\u202f000" in driver.find_element(*by("section.carte h3")).text
    _visible(driver, "form[action$='/confirmer'] button")  # the payout another treasurer prepared
