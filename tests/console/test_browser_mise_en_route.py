"""The first run of a union in a real Chromium: `unionflow serve` on an EMPTY database of the suite's backend
(migrated and bootstrapped by the server itself), the bootstrap administrator changes his password, then « Mise en
route » leads him through the federation, a mutual (one refused form on the way, its typed values kept), its
officers, treasuries and opening balances (approved by the president on « À approuver »), the Wave account, the
dues scale and the member import, until the page says the union is set up. Only the browser acts; nothing is
seeded. The steps are tests/console/parcours.py's, which the whole-month test takes too.

Skipped, with the reason printed at the end of the run, when chromium/chromedriver are absent."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.console import browser
from tests.console.parcours import (
    add_to_bureau,
    approve_opening_balances,
    change_first_password,
    create_federation,
    css,
    declare_treasuries,
    empty_server,
    fill,
    import_members,
    next_step,
    register_wave,
    set_monthly_dues,
    shot,
    sign_in,
    submit,
)

REASON = browser.missing_browser()
pytestmark = pytest.mark.skipif(REASON is not None, reason=REASON or "")
ADMIN, BOOTSTRAP, NOUVEAU = "admin@unionflow.local", "Bootstrap-Mise-en-route-2026!", "Admin-Mise-en-route-2026!"
BUREAU = {"tresorier": ("fatou.sarr@example.sn", "Fatou", "Sarr", "TRESORIER"),
          "president": ("modou.diop@example.sn", "Modou", "Diop", "PRESIDENT")}
MOT_DE_PASSE_BUREAU = "Bureau-Mutuelle-2026!"


@pytest.fixture(scope="module")
def vide(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with empty_server(tmp_path_factory.mktemp("mise_en_route"), ADMIN, BOOTSTRAP) as base:
        yield base


def test_first_run_from_an_empty_installation_to_the_member_import(driver: Any, vide: str,
                                                                   tmp_path: Path) -> None:
    base = vide
    photo = lambda name: shot(driver, name)  # noqa: E731
    change_first_password(driver, base, ADMIN, BOOTSTRAP, NOUVEAU)
    driver.get(base + "/console/mise-en-route")
    assert len(driver.find_elements("css selector", "ol.etapes span.ko")) == 7
    shot(driver, "mise-en-route")
    css(driver, "nav a[href='/console/mise-en-route']")  # reachable from the menu

    create_federation(driver, base, "Fédération des mutuelles de Ziguinchor")
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
        add_to_bureau(driver, base, email, prenom, nom, MOT_DE_PASSE_BUREAU, role,
                      photo if role == "PRESIDENT" else None)
    declare_treasuries(driver, base, "125 000", photo)
    approve_opening_balances(driver, base, BUREAU["president"][0], MOT_DE_PASSE_BUREAU)

    sign_in(driver, base, ADMIN, NOUVEAU)
    register_wave(driver, base, photo)
    set_monthly_dues(driver, base, "2 500", photo)
    assert css(driver, "#cotisations_bareme_mensuelle").get_attribute("value") == "2500"
    import_members(driver, base, tmp_path / "membres.csv",
                   "Aïssatou;Badji;aissatou.badji@example.sn;+221770000011\n")

    driver.get(base + "/console/mise-en-route")
    assert "L'union est en route" in driver.page_source
    shot(driver, "mise-en-route-faite")
    assert not driver.find_elements("css selector", "ol.etapes span.ko")
