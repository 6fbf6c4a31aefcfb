"""The processings of personal data documents/ declares (core/traitements.py): collected by registres.py into the
register of processings (GET /api/conformite/traitements)."""

from __future__ import annotations

from unionflow.core.traitements import DeclarationTraitement

TRAITEMENTS = (
    DeclarationTraitement(
        code='DOCUMENTS',
        nom='Documents et téléchargements',
        zone='documents',
        finalite='Conserver les pièces (justificatifs, reçus) et tracer leurs téléchargements',
        base_legale=('Obligation comptable (justificatifs) et sécurité; loi n° 2008-12, article non vérifié '
                     '(docs/conformite.md)'),
        categories_donnees=('fichiers déposés', 'adresse IP et date des téléchargements'),
        personnes_concernees=('membres', 'personnes citées dans les pièces'),
        destinataires=("le bureau de l'organisation",),
        duree_conservation='Pièces: durée légale (non vérifiée, S12)',
        transferts_hors_senegal=("Aucun par UnionFlow; hébergement hors du Sénégal: à déclarer par l'exploitant "
                                 '(non vérifié)'),
        tables=('document', 'piece_jointe', 'telechargement_document'),
    ),
)
