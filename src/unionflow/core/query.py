"""Small query helpers shared by repositories."""

from __future__ import annotations

import re
from typing import Any

from sqlalchemy import ColumnElement, and_, false, func, or_, true

from unionflow.models.texte import cle_recherche

# Spaces, dots and dashes between two digits.
_GROUPES_DE_CHIFFRES = re.compile(r"(?<=\d)[\s.\-]+(?=\d)")


def _like_pattern(text: str) -> str:
    """``%text%`` with LIKE wildcards in ``text`` taken literally (escape character ``\\``)."""
    return "%" + text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


def contains_ci(columns: list[Any], text: str) -> ColumnElement[bool]:
    """Case-insensitive substring match on any of ``columns``; LIKE wildcards in ``text`` are literal."""
    pattern = _like_pattern(text.lower())
    clauses = [func.lower(c).like(pattern, escape="\\") for c in columns]
    return or_(*clauses) if clauses else false()


def contient(recherche: Any, text: str) -> ColumnElement[bool]:
    """Free-text search on a model's ``recherche`` key (models/texte.py), accents and case ignored on both back
    ends: every word of ``text`` must occur in the key ("diallo élodie" finds Élodie Diallo). Digits typed in
    groups are one number ("77 123 45 67" finds +221771234567), as phones are written."""
    mots = _GROUPES_DE_CHIFFRES.sub("", cle_recherche(text)).split()
    return and_(*(recherche.like(_like_pattern(m), escape="\\") for m in mots)) if mots else true()
