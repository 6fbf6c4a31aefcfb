from __future__ import annotations

import pytest

from tests.ussd.passerelle import SECRET


@pytest.fixture(autouse=True)
def passerelle(app, monkeypatch):
    monkeypatch.setattr(app.state.settings, "ussd_gateway_secret", SECRET)
    monkeypatch.setattr(app.state.settings, "ussd_max_requests", 1000)
