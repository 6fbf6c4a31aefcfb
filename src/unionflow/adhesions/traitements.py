"""The processings of personal data adhesions/ declares (core/traitements.py): collected by registres.py into the
register of processings (GET /api/conformite/traitements)."""

from __future__ import annotations

from unionflow.core.traitements import DeclarationTraitement

TRAITEMENTS = (
    DeclarationTraitement(
        code='ADHESIONS',
        nom="Demandes d'adhésion",
        zone='adhesions',
        finalite="Instruire les demandes d'adhésion et encaisser les droits d'adhésion",
        base_legale=('Consentement (appartenance syndicale) et mesures précontractuelles; loi n° 2008-12, article '
                     'non vérifié (docs/conformite.md)'),
        categories_donnees=('demandeur', 'organisation demandée', 'décision et motif', 'frais'),
        personnes_concernees=('candidats', 'membres'),
        destinataires=("le bureau de l'organisation",),
        duree_conservation=('Conservées avec les pièces comptables des frais (durée légale non vérifiée, '
                            'docs/conformite.md S12)'),
        transferts_hors_senegal=("Aucun par UnionFlow; hébergement hors du Sénégal: à déclarer par l'exploitant "
                                 '(non vérifié)'),
        tables=('adhesion',),
        donnees_sensibles=('appartenance syndicale',),
    ),
)
