"""The processings of personal data paiements/ declares (core/traitements.py): collected by registres.py into the
register of processings (GET /api/conformite/traitements)."""

from __future__ import annotations

from unionflow.core.traitements import DeclarationTraitement

TRAITEMENTS = (
    DeclarationTraitement(
        code='PAIEMENTS',
        nom='Encaissements, reçus, versements',
        zone='paiements',
        finalite='Encaisser les paiements, émettre les reçus, verser les aides et remboursements',
        base_legale=("Obligation comptable (SYCEBNL) et exécution de l'adhésion; loi n° 2008-12, article non "
                     'vérifié (docs/conformite.md)'),
        categories_donnees=(
            'montants, moyens de paiement, références',
            "bénéficiaire d'un versement (nom, téléphone)",
        ),
        personnes_concernees=('membres', 'bénéficiaires de versements', 'donateurs'),
        destinataires=(
            "le bureau de l'organisation",
            'le commissaire aux comptes',
            'Wave et les opérateurs de mobile money',
        ),
        duree_conservation='Durée légale des pièces comptables (non vérifiée, S12); jamais supprimés',
        transferts_hors_senegal="Selon l'opérateur de paiement (Wave): non vérifié",
        tables=('paiement', 'paiement_allocation', 'mouvement_avoir', 'versement'),
    ),
)
