"""What a payment method asks of the money's trace (docs/decisions.md, « chaque méthode dans sa trésorerie »).

Methods whose money leaves a trace elsewhere (a bank statement, a mobile-money history) need their reference, so
the treasurer can reconcile. A direct Wave transfer (WAVE_TRANSFERT, an extension of the spec's enum) needs the
Wave transaction id, in the shape Wave prints it on the sender's and the receiver's history (``T`` then letters
and digits, e.g. ``T_4FJX2K7QZP1M`` or ``TCN4Y4ZC3FM``): anything else is a typing slip found now rather than at
the closing. WAVE itself stays the spec's checkout method, confirmed by Wave.
"""

from __future__ import annotations

import re

from unionflow.core.regles import Si
from unionflow.models.paiement import MethodePaiement

METHODES_AVEC_REFERENCE = frozenset({MethodePaiement.VIREMENT, MethodePaiement.CHEQUE, MethodePaiement.WAVE,
                                     MethodePaiement.ORANGE_MONEY, MethodePaiement.FREE_MONEY,
                                     MethodePaiement.CARTE, MethodePaiement.WAVE_TRANSFERT})
TRANSACTION_WAVE = re.compile(r"^T_?[A-Z0-9]{6,30}$", re.IGNORECASE)
DESCRIPTION_TRANSACTION_WAVE = ("identifiant de transaction Wave: « T » ou « T_ » puis 6 à 30 lettres ou chiffres "
                                "(ex. T_4FJX2K7QZP1M)")


def erreur_reference(methode: MethodePaiement | str, reference: str | None, champ: str = "referenceExterne"
                     ) -> str | None:
    """Why ``reference`` does not suit ``methode`` (None: it does)."""
    if methode in METHODES_AVEC_REFERENCE and not (reference and reference.strip()):
        if methode == MethodePaiement.WAVE_TRANSFERT:
            return f"{champ} est obligatoire pour un transfert Wave (WAVE_TRANSFERT): {DESCRIPTION_TRANSACTION_WAVE}"
        return f"{champ} est obligatoire pour la méthode {methode}"
    if methode == MethodePaiement.WAVE_TRANSFERT and not TRANSACTION_WAVE.match((reference or "").strip()):
        return f"{champ} « {reference} » n'est pas un {DESCRIPTION_TRANSACTION_WAVE}"
    return None


# TRANSACTION_WAVE without its flag, as JSON Schema and Python both read it.
FORME_TRANSACTION_WAVE = r"^[Tt]_?[A-Za-z0-9]{6,30}$"


def regles_reference(champ_methode: str, champ_reference: str, alias: str,
                     methodes: frozenset[MethodePaiement] = METHODES_AVEC_REFERENCE) -> tuple[Si, ...]:
    """``erreur_reference`` as request rules (core.regles): one per method of ``methodes``, so the request's
    JSON Schema states which method needs its reference, and the Wave transaction id's shape."""
    return tuple(
        Si(champ_methode, methode, f"{alias} est obligatoire pour un transfert Wave (WAVE_TRANSFERT): "
                                   f"{DESCRIPTION_TRANSACTION_WAVE}",
           requis=(champ_reference,), forme=FORME_TRANSACTION_WAVE,
           message_forme=f"{alias} « {{valeur}} » n'est pas un {DESCRIPTION_TRANSACTION_WAVE}")
        if methode == MethodePaiement.WAVE_TRANSFERT else
        Si(champ_methode, methode, f"{alias} est obligatoire pour la méthode {methode}", requis=(champ_reference,))
        for methode in sorted(methodes))
