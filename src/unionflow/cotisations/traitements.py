"""The processings of personal data cotisations/ declares (core/traitements.py): collected by registres.py into the
register of processings (GET /api/conformite/traitements)."""

from __future__ import annotations

from unionflow.core.traitements import DeclarationTraitement

TRAITEMENTS = (
    DeclarationTraitement(
        code='COTISATIONS',
        nom='Cotisations et rappels',
        zone='cotisations',
        finalite='Appeler les cotisations, suivre les retards, envoyer les rappels',
        base_legale="Exécution de l'adhésion; loi n° 2008-12, article non vérifié (docs/conformite.md)",
        categories_donnees=('cotisations dues et payées', 'adresse de rappel (e-mail, téléphone)'),
        personnes_concernees=('membres',),
        destinataires=(
            "le bureau de l'organisation",
            "la passerelle SMS et le serveur de messagerie de l'exploitant",
        ),
        duree_conservation='Pièces comptables: durée légale (non vérifiée, S12)',
        transferts_hors_senegal=("Aucun par UnionFlow; hébergement hors du Sénégal: à déclarer par l'exploitant "
                                 '(non vérifié)'),
        tables=('cotisation', 'rappel_cotisation'),
    ),
)
