"""The processings of personal data auth/ declares (core/traitements.py): collected by registres.py into the
register of processings (GET /api/conformite/traitements)."""

from __future__ import annotations

from unionflow.core.traitements import DeclarationTraitement

TRAITEMENTS = (
    DeclarationTraitement(
        code='COMPTES_CONNEXION',
        nom='Comptes de connexion',
        zone='auth',
        finalite="Authentifier les utilisateurs (fournisseur d'identité intégré), limiter les essais de connexion",
        base_legale=("Nécessaire à la fourniture du service demandé par l'utilisateur; loi n° 2008-12, article non"
                     ' vérifié (docs/conformite.md)'),
        categories_donnees=(
            'identifiant, e-mail, nom, prénom',
            'empreinte du mot de passe (argon2)',
            'jetons de session',
        ),
        personnes_concernees=("utilisateurs de la console et de l'API",),
        destinataires=("les administrateurs de l'union",),
        duree_conservation="Durée du compte; jetons jusqu'à leur expiration",
        transferts_hors_senegal=("Aucun par UnionFlow; hébergement hors du Sénégal: à déclarer par l'exploitant "
                                 '(non vérifié)'),
        tables=('utilisateur_local', 'refresh_token', 'login_throttle', 'jeton_reinitialisation'),
    ),
)
