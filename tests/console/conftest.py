from __future__ import annotations

from typing import Any

from tests.console.browser import missing_browser


def pytest_terminal_summary(terminalreporter: Any) -> None:
    reason = missing_browser()
    if reason:
        terminalreporter.write_line(f"tests/console/test_browser.py: IGNORÉS — {reason}", yellow=True, bold=True)
