"""Secrets never reach a log line or the stored system logs: passwords, bearer tokens, JWTs, Wave keys, client
secrets and Authorization headers are masked in messages, in structured fields and in tracebacks."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

MASK = "[MASQUÉ]"

# Field names whose value is a secret whatever it looks like.
SENSITIVE_KEY = re.compile(
    r"pass(word|wd)?|mot_?de_?passe|secret|token|authorization|api[_-]?key|cookie|credential|signature",
    re.IGNORECASE)

_PATTERNS: list[tuple[re.Pattern[str], str]] = [
    # Authorization header values, wherever they are written.
    (re.compile(r"\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+", re.IGNORECASE), r"\1 " + MASK),
    # Any JWT (three base64url parts, the first a JSON header).
    (re.compile(r"\beyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*"), MASK),
    # Wave API keys (wave_sn_prod_…, wave_ci_test_…).
    (re.compile(r"\bwave_[A-Za-z0-9]+_(prod|test|live)_[A-Za-z0-9_-]+", re.IGNORECASE), MASK),
    # key=value, key: value, "key": "value" for a sensitive key name (query strings, dict reprs, JSON).
    (re.compile(r"""(?i)((?:pass(?:word|wd)?|mot_?de_?passe|secret|token|authorization|api[_-]?key)[\w-]*"""
                r"""["']?\s*[:=]\s*["']?)(?!\[MASQU)([^\s"',&}\]]+)"""), r"\1" + MASK),
]


class Redactor:
    """Masks the known patterns and, literally, the secret values this installation is configured with."""

    def __init__(self, secrets: Iterable[str | None] = ()) -> None:
        self.literals: list[str] = []
        self.add(secrets)

    def add(self, secrets: Iterable[str | None]) -> None:
        # Short values would mask ordinary words; configured secrets are long in practice.
        known = set(self.literals) | {s for s in secrets if s and len(s) >= 6}
        self.literals = sorted(known, key=len, reverse=True)

    def text(self, value: str) -> str:
        for literal in self.literals:
            if literal in value:
                value = value.replace(literal, MASK)
        for pattern, replacement in _PATTERNS:
            value = pattern.sub(replacement, value)
        return value

    def value(self, value: Any, key: str | None = None) -> Any:
        if key is not None and SENSITIVE_KEY.search(key) and value not in (None, ""):
            return MASK
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {k: self.value(v, str(k)) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [self.value(v) for v in value]
        return value
