"""GSM 03.38 (GSM-7): the alphabet an SMS carries at 160 characters a message. A character outside it switches
the whole message to UCS-2 (70 characters), so texts meant for one SMS are checked against it; the extension
table's characters count twice (escape + character)."""

from __future__ import annotations

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
