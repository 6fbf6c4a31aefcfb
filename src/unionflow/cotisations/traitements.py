"""The processings of personal data cotisations/ declares (core/traitements.py): collected by registres.py into the
register of processings (GET /api/conformite/traitements)."""

from __future__ import annotations

from unionflow.core.traitements import DeclarationTraitement
from unionflow.notifications.emission import TRAITEMENT_RAPPELS

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
    DeclarationTraitement(
        code=TRAITEMENT_RAPPELS,
        nom='Rappels de cotisation par SMS et e-mail',
        zone='cotisations',
        finalite="Rappeler au membre, par SMS et par e-mail, les cotisations qu'il lui reste à régler",
        base_legale=("Intérêt légitime de l'organisation à recouvrer les cotisations; le membre peut s'y opposer "
                     '(loi n° 2008-12): la cotisation reste due et visible dans son espace'),
        categories_donnees=('cotisations à régler, montant, code de paiement', 'adresse de rappel (e-mail, téléphone)'),
        personnes_concernees=('membres',),
        destinataires=("la passerelle SMS et le serveur de messagerie de l'exploitant",),
        duree_conservation='Rappels: comme les cotisations (non vérifiée, S12)',
        transferts_hors_senegal=("Aucun par UnionFlow; hébergement hors du Sénégal: à déclarer par l'exploitant "
                                 '(non vérifié)'),
        tables=('rappel_cotisation',),
        opposable=True,
        effet_opposition=("Plus aucun rappel de cotisation par SMS ni par e-mail; les cotisations restent dues et "
                          'affichées dans votre espace membre'),
    ),
)
