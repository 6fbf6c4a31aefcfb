"""The processings of personal data audit/ declares (core/traitements.py): collected by registres.py into the
register of processings (GET /api/conformite/traitements)."""

from __future__ import annotations

from unionflow.core.traitements import DeclarationTraitement

TRAITEMENTS = (
    DeclarationTraitement(
        code='JOURNAL_AUDIT',
        nom="Journal d'audit",
        zone='audit',
        finalite='Tracer chaque modification (qui, quand, quoi) pour la sécurité et le contrôle',
        base_legale='Sécurité des traitements (article non vérifié, docs/conformite.md D10)',
        categories_donnees=('auteur', 'adresse IP, navigateur', 'valeurs avant/après'),
        personnes_concernees=('utilisateurs', 'membres concernés'),
        destinataires=('les administrateurs', 'le commissaire aux comptes', 'le trésorier (son argent)'),
        duree_conservation=("Conservé sans suppression: piste d'audit des livres (AUDCIF art. 24, dix ans au moins; "
                            "docs/conformite.md S12)"),
        transferts_hors_senegal=("Aucun par UnionFlow; hébergement hors du Sénégal: à déclarer par l'exploitant "
                                 '(non vérifié)'),
        tables=('audit_log',),
    ),
)
