from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.console import browser
from tests.console.browser import missing_browser


@pytest.fixture(scope="module")
def world(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[browser.World]:
    """A running `unionflow serve` on a scratch database, one per browser test module."""
    yield from browser.serve(tmp_path_factory.mktemp(request.module.__name__.rsplit(".", 1)[-1]))


@pytest.fixture
def telechargements(tmp_path: Path) -> Path:
    """The folder the test's Chromium downloads into: the test's own."""
    return tmp_path / "downloads"


@pytest.fixture
def driver(telechargements: Path) -> Iterator[Any]:
    """A fresh Chromium per test (its own cookies and downloads folder): the one browser fixture of the browser
    tests, on the module's `world` or on a server of their own."""
    chrome = browser.chrome(telechargements)
    try:
        yield chrome
    finally:
        chrome.quit()


def pytest_terminal_summary(terminalreporter: Any) -> None:
    reason = missing_browser()
    if reason:
        terminalreporter.write_line(f"tests/console/test_browser.py: IGNORÉS — {reason}", yellow=True, bold=True)
