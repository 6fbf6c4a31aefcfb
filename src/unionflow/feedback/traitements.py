"""The processings of personal data feedback/ declares (core/traitements.py): collected by registres.py into the
register of processings (GET /api/conformite/traitements)."""

from __future__ import annotations

from unionflow.core.traitements import DeclarationTraitement

TRAITEMENTS = (
    DeclarationTraitement(
        code='AVIS',
        nom='Avis sur le service',
        zone='feedback',
        finalite='Recueillir les avis des utilisateurs',
        base_legale='Participation volontaire; loi n° 2008-12, article non vérifié (docs/conformite.md)',
        categories_donnees=("nom de l'auteur", 'avis'),
        personnes_concernees=('utilisateurs',),
        destinataires=('les modérateurs',),
        duree_conservation="Supprimés {echanges_jours} jours après leur traitement ou, non traités, leur dépôt",
        transferts_hors_senegal=("Aucun par UnionFlow; hébergement hors du Sénégal: à déclarer par l'exploitant "
                                 '(non vérifié)'),
        tables=('feedback',),
    ),
)
