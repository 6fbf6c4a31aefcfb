"""Fixtures that point the app at the Wave simulator (unionflow.wave.simulateur), served on loopback once per
test session and reset before each test."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from unionflow.wave.simulateur import SimulateurWave, serving


@pytest.fixture(scope="session")
def fake_wave_server() -> Iterator[SimulateurWave]:
    with serving(SimulateurWave()) as fake:
        yield fake


@pytest.fixture
def wave(fake_wave_server: SimulateurWave, app: Any, monkeypatch: pytest.MonkeyPatch) -> SimulateurWave:
    """The app talks to the simulator for this test (its settings object is the one requests read)."""
    fake_wave_server.reset()
    monkeypatch.setattr(app.state.settings, "wave_api_base_url", fake_wave_server.url)
    monkeypatch.setattr(app.state.settings, "wave_api_key", fake_wave_server.api_key)
    return fake_wave_server
