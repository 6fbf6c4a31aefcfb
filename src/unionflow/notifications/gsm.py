"""GSM 03.38 (GSM-7): the alphabet an SMS carries at 160 characters a message. A character outside it switches
the whole message to UCS-2 (70 characters), so texts meant for one SMS are checked against it; the extension
table's characters count twice (escape + character)."""

from __future__ import annotations

import unicodedata

SMS_MAX = 160
BASIC = ("@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !\"#¤%&'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿"
         "abcdefghijklmnopqrstuvwxyzäöñüà")
EXTENSION = "^{}\\[~]|€\f"
_BASIC = frozenset(BASIC)
_EXTENSION = frozenset(EXTENSION)


def septets(text: str) -> int | None:
    """Length of ``text`` in GSM-7 septets; None when a character is not in the alphabet."""
    total = 0
    for char in text:
        if char in _BASIC:
            total += 1
        elif char in _EXTENSION:
            total += 2
        else:
            return None
    return total


def tient_en_un_sms(text: str) -> bool:
    length = septets(text)
    return length is not None and length <= SMS_MAX


# Characters of the GSM-7 basic table kept as they are (é, è, à, ù are in it); the others lose their accent.
_GARDES = frozenset("éèàùÉÇ")
_LIGATURES = {"œ": "oe", "Œ": "OE", "æ": "ae", "’": "'", "‘": "'", "«": '"', "»": '"', "–": "-", "—": "-",
              "\u00a0": " ", "\u202f": " "}


def gsm7(text: str) -> str:
    """``text`` in the GSM-7 alphabet: ç → c, ê → e, œ → oe, …; what has no Latin form becomes '?'."""
    out = []
    for char in text:
        if char in _GARDES or septets(char) == 1:
            out.append(char)
            continue
        char = _LIGATURES.get(char, char)
        base = "".join(c for c in unicodedata.normalize("NFKD", char) if not unicodedata.combining(c))
        out.append(base if septets(base) == len(base) else "?")
    return "".join(out)


def un_sms(text: str) -> str:
    """``text`` transliterated and cut to one SMS (160 septets): the last guard of every text meant for one
    segment, whose dynamic parts were already shortened."""
    body = gsm7(text)
    if (septets(body) or 0) <= SMS_MAX:
        return body
    body = body[:SMS_MAX - 3]
    while (septets(body) or 0) > SMS_MAX - 3:  # extension characters count twice
        body = body[:-1]
    return body + "..."


def court(text: str, longueur: int) -> str:
    """A name, title or place cut to ``longueur`` characters (a dot marks the cut)."""
    return text if len(text) <= longueur else text[:longueur - 1] + "."
