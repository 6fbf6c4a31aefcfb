"""The processings of personal data tickets/ declares (core/traitements.py): collected by registres.py into the
register of processings (GET /api/conformite/traitements)."""

from __future__ import annotations

from unionflow.core.traitements import DeclarationTraitement

TRAITEMENTS = (
    DeclarationTraitement(
        code='TICKETS',
        nom="Demandes d'assistance",
        zone='tickets',
        finalite='Traiter les demandes des membres au bureau',
        base_legale='Demande de la personne; loi n° 2008-12, article non vérifié (docs/conformite.md)',
        categories_donnees=('nom du demandeur', 'messages'),
        personnes_concernees=('membres',),
        destinataires=("le bureau de l'organisation",),
        duree_conservation=("Textes et nom du demandeur effacés {echanges_jours} jours après la fermeture; numéro, "
                            "catégorie et dates gardés"),
        transferts_hors_senegal=("Aucun par UnionFlow; hébergement hors du Sénégal: à déclarer par l'exploitant "
                                 '(non vérifié)'),
        tables=('ticket', 'ticket_message'),
    ),
)
