"""What a payment method asks of the money's trace (docs/decisions.md, « chaque méthode dans sa trésorerie »).

Methods whose money leaves a trace elsewhere (a bank statement, a mobile-money history) need their reference, so
the treasurer can reconcile. A direct Wave transfer (WAVE_TRANSFERT, an extension of the spec's enum) needs the
Wave transaction id, in the shape Wave prints it on the sender's and the receiver's history (``T`` then letters
and digits, e.g. ``T_4FJX2K7QZP1M`` or ``TCN4Y4ZC3FM``): anything else is a typing slip found now rather than at
the closing. WAVE itself stays the spec's checkout method, confirmed by Wave.
"""

from __future__ import annotations

import re

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
