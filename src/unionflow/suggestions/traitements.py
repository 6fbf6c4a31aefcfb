"""The processings of personal data suggestions/ declares (core/traitements.py): collected by registres.py into the
register of processings (GET /api/conformite/traitements)."""

from __future__ import annotations

from unionflow.core.traitements import DeclarationTraitement

TRAITEMENTS = (
    DeclarationTraitement(
        code='SUGGESTIONS',
        nom='Suggestions',
        zone='suggestions',
        finalite='Recueillir et voter les suggestions des membres',
        base_legale='Participation volontaire; loi n° 2008-12, article non vérifié (docs/conformite.md)',
        categories_donnees=("nom de l'auteur", 'texte', 'votes'),
        personnes_concernees=('membres',),
        destinataires=("le bureau de l'organisation", 'les autres membres (auteur affiché)'),
        duree_conservation=("Gardées dans l'historique de l'organisation; nom de l'auteur effacé {echanges_jours} "
                            "jours après la décision (rejetée ou réalisée)"),
        transferts_hors_senegal=("Aucun par UnionFlow; hébergement hors du Sénégal: à déclarer par l'exploitant "
                                 '(non vérifié)'),
        tables=('suggestion', 'suggestion_vote'),
    ),
)
