"""Amounts as a treasurer reads them: FCFA with thousands grouped, and in words in French for documents."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

from num2words import num2words

# XOF (UEMOA) and XAF (CEMAC) are both written "FCFA" on West and Central African receipts.
_LIBELLES = {"XOF": "FCFA", "XAF": "FCFA"}
_NOMS = {"XOF": ("franc CFA", "francs CFA"), "XAF": ("franc CFA", "francs CFA"), "EUR": ("euro", "euros")}
NBSP = "\u00a0"


def libelle_devise(devise: str) -> str:
    return _LIBELLES.get(devise, devise)


def format_montant(value: Decimal, devise: str = "XOF") -> str:
    """``125 000 FCFA``; cents only when there are some (the franc CFA has no subunit in use)."""
    cents = value != value.to_integral_value()
    text = f"{value:,.2f}" if cents else f"{value:,.0f}"
    return f"{text.replace(',', NBSP).replace('.', ',')}{NBSP}{libelle_devise(devise)}"


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
