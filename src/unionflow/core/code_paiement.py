"""Payment codes: the short number printed on a dues that anyone may pay with (a relative abroad, a Wave transfer's
message, a USSD menu). Nine random digits, the first not 0, then two ISO 7064 MOD 97-10 check digits (those of the
IBAN): every single wrong digit and every swap of two digits, adjacent or not, is detected, and a random typo
passes with probability about 1 in 97. Eleven digits: typed on any phone keypad, read out on the phone."""

from __future__ import annotations

import re
import secrets

LONGUEUR = 11
_CORPS = LONGUEUR - 2
# Eleven digits written with or without separators (spaces, dots, dashes, slashes), not inside a longer number.
_DANS_TEXTE = re.compile(r"(?<![0-9])[0-9](?:[ .\-/]?[0-9]){10}(?![0-9])")


def cle_controle(corps: str) -> str:
    """The two check digits of ``corps`` (digits only): 98 − (corps × 100 mod 97)."""
    return f"{98 - int(corps) * 100 % 97:02d}"


def est_valide(code: str) -> bool:
    return len(code) == LONGUEUR and code.isdigit() and code[0] != "0" and int(code) % 97 == 1


def nouveau_code() -> str:
    corps = str(secrets.randbelow(9 * 10 ** (_CORPS - 1)) + 10 ** (_CORPS - 1))
    return corps + cle_controle(corps)


def normaliser(saisie: str) -> str:
    """What the person typed without its separators (spaces, dots, dashes…)."""
    return "".join(ch for ch in saisie if ch.isalnum())


def lire(saisie: str) -> str | None:
    """The code typed (separators allowed), or None when it is not a valid code."""
    code = normaliser(saisie)
    return code if est_valide(code) else None


def trouver(texte: str | None) -> tuple[str | None, bool]:
    """In a free text (a transfer's message, a client reference): (the first valid code, whether something
    looking like a code was there). A number of eleven digits that fails its check is reported, not guessed."""
    if not texte:
        return None, False
    candidats = [normaliser(m.group(0)) for m in _DANS_TEXTE.finditer(texte)]
    for code in candidats:
        if est_valide(code):
            return code, True
    return None, bool(candidats)


def afficher(code: str) -> str:
    """Grouped for reading aloud and typing: ``4821 0937 512``."""
    return f"{code[:4]} {code[4:8]} {code[8:]}"


def mention(code: str | None) -> str:
    """How notices, reminders and screens name the code (GSM-7, one line); empty when the dues has none."""
    return f"Code de paiement: {afficher(code)}" if code else ""
