"""A Wave statement line that matches none of our money but carries a dues' payment code (core/code_paiement.py)
in its client reference or its message (a transfer « cotisation 4821 0937 512 »): the money is that dues' member's
payment, recorded and applied now (it is on Wave's statement: received, not declared), receipted to the member and
told to the sender's number. A code that fails its check digits, names no dues, or a dues of another organisation
leaves the line unknown, in the treasury's list to assign: never guessed, never another member's."""

from __future__ import annotations

from decimal import Decimal

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.core import code_paiement
from unionflow.core.auth import AuthContext
from unionflow.models import LigneReleveWave, Paiement
from unionflow.models.cotisation import StatutCotisation
from unionflow.models.paiement import MethodePaiement
from unionflow.paiements.encaissement.emission import notifier_payeur
from unionflow.paiements.encaissement.validation_service import outstanding
from unionflow.paiements.encaissement.workflow import Cible, EncaissementService
from unionflow.paiements.repository import PaiementSystemRepository
from unionflow.wave.parsing import LigneWave

ZERO = Decimal("0")


def code_de_ligne(ligne: LigneReleveWave | LigneWave) -> str | None:
    """The valid payment code the line carries (client reference first, then message), or None."""
    for texte in (ligne.client_reference, ligne.message):
        code, _ = code_paiement.trouver(texte)
        if code is not None:
            return code
    return None


async def encaisser_par_code(session: AsyncSession, auth: AuthContext, ligne: LigneReleveWave) -> Paiement | None:
    """The payment recorded for this line by its code, or None (the line stays unknown)."""
    brut = ligne.montant + ligne.frais
    if ligne.est_annulation or brut <= ZERO or ligne.devise != "XOF":
        return None
    code = code_de_ligne(ligne)
    found = await PaiementSystemRepository(session).par_code_paiement(code) if code else None
    if found is None or found[0].organisation_id != ligne.organisation_id:
        return None
    cotisation = found[0]
    # Locked in the payment's lock order, then read afresh: a dues settled or cancelled meanwhile takes nothing.
    verrouillees = await PaiementSystemRepository(session).lock_cibles([cotisation.id], [])
    cotisation = verrouillees[cotisation.id]  # type: ignore[assignment]
    payable = cotisation.statut != StatutCotisation.ANNULEE and outstanding(cotisation) > ZERO
    paiement = await EncaissementService(session, auth).enregistrer(
        membre_id=cotisation.membre_id, organisation_id=cotisation.organisation_id, montant=brut,
        methode=MethodePaiement.WAVE_TRANSFERT.value, devise=cotisation.devise,
        cibles=[Cible(cotisation_id=cotisation.id)] if payable else [], verrouillees=verrouillees, avance=True,
        reference_externe=ligne.transaction_id, date_paiement=ligne.horodatage,
        commentaire=f"Transfert Wave avec le code de paiement {code_paiement.afficher(cotisation.code_paiement or '')}")
    if ligne.contrepartie_mobile and ligne.contrepartie_mobile.startswith("+"):
        await notifier_payeur(session, paiement, ligne.contrepartie_mobile, cotisation.code_paiement)
    return paiement
