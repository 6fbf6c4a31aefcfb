"""docs/operations.md lists every setting with its real default: the table is what config_doc generates."""

from __future__ import annotations

from pathlib import Path

from unionflow import config_doc
from unionflow.config import Settings

DOC = Path(__file__).parents[1] / "docs" / "operations.md"


def test_operations_doc_lists_every_setting_with_its_default():
    text = DOC.read_text(encoding="utf-8")
    rows = config_doc.documented(text)
    assert set(rows) == {config_doc.env_name(name) for name in Settings.model_fields}, \
        "run: python -m unionflow.config_doc docs/operations.md"
    assert config_doc.regenerate(text) == text, "defaults or order drifted: python -m unionflow.config_doc …"
    undocumented = sorted(name for name, (_, meaning) in rows.items() if meaning in ("", config_doc.MISSING))
    assert not undocumented, f"write the meaning of {undocumented} in docs/operations.md"


def test_drift_is_detected_and_meanings_are_kept():
    text = DOC.read_text(encoding="utf-8")
    stale = text.replace("| `UNIONFLOW_LOG_RETENTION_DAYS` | `14` |", "| `UNIONFLOW_LOG_RETENTION_DAYS` | `30` |")
    removed = "\n".join(line for line in text.splitlines() if "`UNIONFLOW_METRICS_TOKEN`" not in line) + "\n"
    assert stale != text and config_doc.regenerate(stale) == text
    assert config_doc.regenerate(removed).count(config_doc.MISSING) == 1
