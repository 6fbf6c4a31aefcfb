"""The processings of personal data wave/ declares (core/traitements.py): collected by registres.py into the
register of processings (GET /api/conformite/traitements)."""

from __future__ import annotations

from unionflow.core.traitements import DeclarationTraitement

TRAITEMENTS = (
    DeclarationTraitement(
        code='WAVE',
        nom='Paiements Wave',
        zone='wave',
        finalite='Créer les paiements Wave, recevoir leurs notifications, rapprocher les relevés',
        base_legale=('Exécution du paiement demandé par le membre; loi n° 2008-12, article non vérifié '
                     '(docs/conformite.md)'),
        categories_donnees=('numéro de téléphone du payeur', 'transactions', 'contrepartie des relevés'),
        personnes_concernees=('membres payeurs', 'contreparties des relevés'),
        destinataires=("le bureau de l'organisation", 'Wave (prestataire de paiement)'),
        duree_conservation='Durée légale des pièces comptables (non vérifiée, S12)',
        transferts_hors_senegal="Selon l'infrastructure de Wave: non vérifié",
        tables=(
            'compte_wave',
            'wave_checkout',
            'wave_evenement',
            'transaction_wave',
            'wave_releve',
            'wave_releve_ligne',
        ),
    ),
)
