from __future__ import annotations

import pytest

from tests.sms.passerelles import SECRET


@pytest.fixture(autouse=True)
def passerelle(app, monkeypatch):
    monkeypatch.setattr(app.state.settings, "sms_callback_secret", SECRET)
    monkeypatch.setattr(app.state.settings, "sms_max_requests", 1000)
