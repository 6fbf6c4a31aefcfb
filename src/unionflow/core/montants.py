"""Amounts as a treasurer reads them: FCFA with thousands grouped, and in words in French for documents."""

from __future__ import annotations

import re
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

from num2words import num2words

from unionflow.core.errors import InvalidInput

# XOF (UEMOA) and XAF (CEMAC) are both written "FCFA" on West and Central African receipts.
_LIBELLES = {"XOF": "FCFA", "XAF": "FCFA"}
_NOMS = {"XOF": ("franc CFA", "francs CFA"), "XAF": ("franc CFA", "francs CFA"), "EUR": ("euro", "euros")}
NBSP = "\u00a0"
# French typography groups thousands with a narrow no-break space (what the console shows); documents keep the
# no-break space their fonts carry.
NNBSP = "\u202f"
# What a person may type between the groups of digits: a space, a no-break or narrow no-break space (pasted from
# a page or a receipt), a thin space; the decimal mark is a comma or a point.
_GROUPES = re.compile(r"[ \u00a0\u202f\u2009]")
_MONTANT_SAISI = re.compile(r"^[-\u2212]?\d{1,16}([.,]\d{1,2})?$")


def libelle_devise(devise: str) -> str:
    return _LIBELLES.get(devise, devise)


def format_montant(value: Decimal | str | int | None, devise: str = "XOF", groupe: str = NBSP) -> str:
    """``125 000 FCFA``; cents only when there are some (the franc CFA has no subunit in use). The one way an
    amount is written for people: console pages (``groupe=NNBSP``), notifications, receipts and statements."""
    return f"{_nombre(value, groupe)}{NBSP}{libelle_devise(devise)}"


def _nombre(value: Decimal | str | int | None, groupe: str) -> str:
    """``125 000`` or ``2 500,50``: grouped thousands, a decimal comma, cents only when there are some."""
    value = Decimal(str(value if value is not None else 0))
    cents = value != value.to_integral_value()
    text = f"{value:,.2f}" if cents else f"{value:,.0f}"
    return text.replace(",", groupe).replace(".", ",")


def montant_a_saisir(value: Decimal | str | int | None) -> str:
    """``5 000`` (plain spaces, no currency): an amount offered in a form's field, as a person types it and as
    ``lire_montant`` reads it back; never ``5000.00``."""
    return _nombre(value, " ") if value not in (None, "") else ""


def montant_texte(value: Decimal | str | int | None, devise: str = "XOF") -> str:
    """``40 000 FCFA`` with plain spaces: notifications, which also leave as SMS (GSM-7 has no no-break space)."""
    return format_montant(value, devise).replace(NBSP, " ")


def lire_montant(texte: str, champ: str = "montant", positif: bool = True) -> Decimal:
    """An amount as a person types it: « 2 500 », « 2 500 » (pasted), « 2500 », « 2500,50 », « 2 500 FCFA ».
    Refused in French (400) when it is not a positive amount with two decimals at most; ``champ`` names the form
    field the reason belongs to; ``positif=False`` (a balance counted at a closing) takes zero and a sign."""
    brut = _GROUPES.sub("", texte or "").removesuffix("FCFA").removesuffix("XOF").strip()
    if not _MONTANT_SAISI.match(brut) or (positif and brut[0] in "-\u2212"):
        raise InvalidInput(f"Montant invalide « {texte.strip()} »: saisissez un nombre, par exemple 2 500",
                           extra={"errors": [{"field": champ, "message": "montant invalide (ex. 2 500)"}]})
    try:
        amount = Decimal(brut.replace(",", ".").replace("\u2212", "-"))
    except InvalidOperation:  # pragma: no cover - the pattern already says what Decimal reads
        raise InvalidInput("Montant invalide") from None
    if positif and amount <= 0:
        raise InvalidInput("Le montant doit être positif",
                           extra={"errors": [{"field": champ, "message": "doit être positif"}]})
    return amount


def montant_en_lettres(value: Decimal, devise: str = "XOF") -> str:
    """``cent vingt-cinq mille francs CFA`` (French rules through num2words, 1990 spelling)."""
    value = value.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
    entier = int(value)
    centimes = int((value - entier) * 100)
    singulier, pluriel = _NOMS.get(devise, (devise, devise))
    mots = num2words(entier, lang="fr")
    # "un million de francs", "deux millions de francs": French puts "de" after round millions/milliards.
    de = " de" if entier and (mots.endswith("million") or mots.endswith("millions") or mots.endswith("milliard")
                              or mots.endswith("milliards")) else ""
    texte = f"{mots}{de} {singulier if entier <= 1 else pluriel}"
    if centimes:
        texte += f" et {num2words(centimes, lang='fr')} centime{'s' if centimes > 1 else ''}"
    return texte
