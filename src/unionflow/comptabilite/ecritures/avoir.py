"""The entry of a member's credit (avoir) applied to dues or an adhesion fee.

The money was booked when it was received: treasury debited, 4191 "Membres, avances reçues" credited (the
payment's entry, ecritures/service.py). Applying it moves no money: debit 4191, credit the income of what it
pays. Undoing a payment whose credit is still whole is the mirror of its entry (``extourner_paiement``);
paying the credit back debits 4191 against the treasury (annulations/).
"""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.comptabilite.ecritures.service import compte_par_defaut, journal_par_defaut
from unionflow.comptabilite.ecritures.tresorerie import (
    compte_standard_organisation,
    journal_de_type,
    tresorerie_du_paiement,
    tresoreries_actives,
    type_de_methode,
)
from unionflow.comptabilite.produits.comptes import compte_produit, nature_cible, produits_organisation
from unionflow.comptabilite.repository import ComptabiliteSystemRepository
from unionflow.comptabilite.service import Ligne, poster_automatique
from unionflow.core.auth import AuthContext
from unionflow.models import Adhesion, Cotisation, EcritureComptable, Paiement

ZERO = Decimal("0")
AVANCES_MEMBRES = "4191"


async def comptabiliser_imputation(session: AsyncSession, paiement: Paiement,
                                   parts: list[tuple[Cotisation | Adhesion, Decimal]],
                                   auth: AuthContext | None) -> EcritureComptable:
    """Debit 4191 by what ``paiement``'s credit pays now, credit each target's income account; in the journal
    of the payment's own entry (where the credit was booked), dated today."""
    org = paiement.organisation_id
    books = ComptabiliteSystemRepository(session)
    original = await books.ecriture_du_paiement(paiement.id)
    journal = await books.journal(original.journal_id) if original is not None else None
    if journal is None:
        journal = await journal_par_defaut(session, org, journal_de_type(type_de_methode(paiement.methode)))
    total = sum((montant for _, montant in parts), ZERO)
    # The same income account a payment of that dues would credit: the organisation's choice per kind of income.
    choix = await produits_organisation(session, org)
    lignes = [Ligne(await compte_par_defaut(session, org, AVANCES_MEMBRES, auth), debit=total, credit=ZERO,
                    libelle=f"Avoir du reçu {paiement.numero_recu} utilisé")]
    for cible, montant in parts:
        numero = compte_produit(choix, nature_cible(cible))
        lignes.append(Ligne(await compte_par_defaut(session, org, numero, auth), debit=ZERO,
                            credit=montant, libelle=f"{cible.numero_reference} payée par avoir"[:300]))
    return await poster_automatique(
        session, auth, journal=journal, date_ecriture=datetime.now(UTC).date(),
        libelle=f"Imputation de l'avoir du reçu {paiement.numero_recu}", lignes=lignes,
        piece_reference=f"AVR-{paiement.numero_recu}",
        description=f"Imputation de l'avoir du reçu {paiement.numero_recu}: {total}")


async def comptabiliser_remboursement_avoir(session: AsyncSession, parts: list[tuple[Paiement, Decimal]],
                                            numero: str, motif: str, auth: AuthContext | None) -> EcritureComptable:
    """Credit paid back to the member: debit 4191, credit the treasury each part of it came in through (the
    method of the payment that created it), in that treasury's journal; the piece is the refund receipt (RMB)."""
    org = parts[0][0].organisation_id
    total = sum((montant for _, montant in parts), ZERO)
    lignes = [Ligne(await compte_par_defaut(session, org, AVANCES_MEMBRES, auth), debit=total, credit=ZERO,
                    libelle=f"Avoir remboursé ({numero})")]
    tresoreries = await tresoreries_actives(session, org)
    for paiement, montant in parts:
        # Out of the account the payment's own entry debited: its treasury's, else its method's standard one.
        tresorerie = tresorerie_du_paiement(tresoreries, paiement)
        numero_tresorerie = (tresorerie.numero_compte if tresorerie is not None else
                             await compte_standard_organisation(session, org, type_de_methode(paiement.methode)))
        lignes.append(Ligne(await compte_par_defaut(session, org, numero_tresorerie, auth), debit=ZERO,
                            credit=montant, libelle=f"Avoir du reçu {paiement.numero_recu} remboursé"[:300]))
    code_journal = journal_de_type(type_de_methode(parts[0][0].methode))
    return await poster_automatique(
        session, auth, journal=await journal_par_defaut(session, org, code_journal),
        date_ecriture=datetime.now(UTC).date(), libelle=f"Remboursement d'avoir {numero}: {motif}", lignes=lignes,
        piece_reference=numero, description=f"Remboursement d'avoir {numero}: {total}")
