"""Phone numbers: what a secretary types brought to E.164, and the national numbers that cannot be valid refused
with the reason, per country. One table for the member import and the member API (docs/decisions.md,
"import et recherche").

Only the shape is checked (length and leading digits of the national number, from each regulator's numbering
plan); whether the number is assigned is not knowable here. A calling code outside the table is accepted as E.164.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from unionflow.core.schemas import regle_metier

# Calling codes of the countries the union works in (UEMOA and neighbours); others must be typed with "+".
INDICATIFS = {"SN": "221", "CI": "225", "ML": "223", "BF": "226", "NE": "227", "TG": "228", "BJ": "229",
              "GW": "245", "GN": "224", "MR": "222", "GM": "220", "CM": "237"}


@dataclass(frozen=True)
class Regle:
    pays: str
    forme: re.Pattern[str]
    attendu: str
    # The lengths the national number may have, and what it must start with when the length is right but the
    # start is not: the reason then says the start, not « 9 chiffres attendus, 9 reçus ».
    longueurs: tuple[int, ...] = ()
    debut: str = ""


def _regle(pays: str, forme: str, attendu: str, longueurs: tuple[int, ...] = (), debut: str = "") -> Regle:
    return Regle(pays, re.compile(forme), attendu, longueurs, debut)


# National significant number (after the calling code) per calling code.
REGLES: dict[str, Regle] = {
    "221": _regle("le Sénégal", r"[37]\d{8}", "9 chiffres commençant par 7 ou 3", (9,), "7 ou 3"),
    "225": _regle("la Côte d'Ivoire", r"\d{10}", "10 chiffres"),
    "223": _regle("le Mali", r"\d{8}", "8 chiffres"),
    "226": _regle("le Burkina Faso", r"\d{8}", "8 chiffres"),
    "227": _regle("le Niger", r"\d{8}", "8 chiffres"),
    "228": _regle("le Togo", r"\d{8}", "8 chiffres"),
    "229": _regle("le Bénin", r"(01)?\d{8}", "10 chiffres commençant par 01 (8 avant 2024)", (8, 10), "01"),
    "224": _regle("la Guinée", r"\d{9}", "9 chiffres"),
    "245": _regle("la Guinée-Bissau", r"\d{9}", "9 chiffres"),
    "222": _regle("la Mauritanie", r"\d{8}", "8 chiffres"),
    "220": _regle("la Gambie", r"\d{7}", "7 chiffres"),
    "237": _regle("le Cameroun", r"\d{9}", "9 chiffres"),
}


def motif_invalide(e164: str) -> str | None:
    """Why ``e164`` (``+`` and digits) cannot be a valid number of its country, or None."""
    for indicatif, regle in REGLES.items():
        if e164.startswith("+" + indicatif):
            national = e164[len(indicatif) + 1:]
            if not regle.forme.fullmatch(national):
                if regle.debut and national.isdigit() and len(national) in regle.longueurs:
                    return (f"numéro invalide pour {regle.pays}: {regle.attendu} attendus après +{indicatif}; "
                            f"celui-ci commence par {national[:len(national) - 8] or national[0]} ({national})")
                recus = f"{len(national)} reçu" + ("s" if len(national) > 1 else "")
                return (f"numéro invalide pour {regle.pays}: {regle.attendu} attendus après +{indicatif}, "
                        f"{recus} ({national})")
            return None
    return None


def normaliser(brut: str, pays: str) -> str:
    """E.164 from what was typed: ``00`` or ``+`` keep their calling code; a national number of the
    organisation's country ``pays`` gains its calling code ("77 123 45 67" in Senegal: +221771234567). Digits
    that already start with the calling code are taken as international only when what follows is a valid
    national number (a 10-digit Ivorian number may itself start with 225)."""
    chiffres = re.sub(r"[\s.\-()/]", "", brut)
    if chiffres.startswith("00"):
        return "+" + chiffres[2:]
    if chiffres.startswith("+"):
        return chiffres
    indicatif = INDICATIFS.get(pays)
    if not (indicatif and chiffres.isdigit()):
        return chiffres
    national = "+" + indicatif + chiffres
    if chiffres.startswith(indicatif) and motif_invalide(national) and not motif_invalide("+" + chiffres):
        return "+" + chiffres
    return national


def verifier_national(value: str | None) -> str | None:
    """Pydantic field validator of every phone a request carries (member, organisation, Wave account, payout
    beneficiary): a number its country's numbering plan rules out ("+22177123") is refused with the reason, 400
    ``regle-metier`` (a per-country rule a JSON Schema pattern would state without saying why)."""
    if value is not None and (motif := motif_invalide(value)):
        raise regle_metier(motif)
    return value
