"""core: identity, organisations, membres, audit, money path

Revision ID: 0001_core
Revises: 
Create Date: 2026-11-21 05:44:47.362561
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0001_core'
down_revision: str | Sequence[str] | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:

    op.create_table('audit_log',
    sa.Column('date_heure', sa.DateTime(timezone=True), nullable=False),
    sa.Column('utilisateur', sa.String(length=254), nullable=True),
    sa.Column('utilisateur_id', sa.String(length=255), nullable=True),
    sa.Column('role_actif', sa.String(length=50), nullable=True),
    sa.Column('organisation_id', sa.Uuid(), nullable=True),
    sa.Column('type_action', sa.String(length=50), nullable=False),
    sa.Column('module', sa.String(length=50), nullable=False),
    sa.Column('entite_type', sa.String(length=50), nullable=True),
    sa.Column('entite_id', sa.String(length=64), nullable=True),
    sa.Column('description', sa.Text(), nullable=True),
    sa.Column('details', sa.JSON(), nullable=True),
    sa.Column('ip_address', sa.String(length=64), nullable=True),
    sa.Column('user_agent', sa.String(length=500), nullable=True),
    sa.Column('severite', sa.String(length=20), nullable=False),
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_audit_log'))
    )
    with op.batch_alter_table('audit_log', schema=None) as batch_op:
        batch_op.create_index('ix_audit_log_date_heure', ['date_heure'], unique=False)
        batch_op.create_index('ix_audit_log_entite', ['entite_type', 'entite_id'], unique=False)
        batch_op.create_index('ix_audit_log_module_date', ['module', 'date_heure'], unique=False)
        batch_op.create_index('ix_audit_log_organisation_date', ['organisation_id', 'date_heure'], unique=False)

    op.create_table('compteur',
    sa.Column('nom', sa.String(length=100), nullable=False),
    sa.Column('valeur', sa.Integer(), nullable=False),
    sa.PrimaryKeyConstraint('nom', name=op.f('pk_compteur'))
    )
    op.create_table('login_throttle',
    sa.Column('key', sa.String(length=300), nullable=False),
    sa.Column('window_start', sa.DateTime(timezone=True), nullable=False),
    sa.Column('failures', sa.Integer(), nullable=False),
    sa.PrimaryKeyConstraint('key', name=op.f('pk_login_throttle'))
    )
    op.create_table('membre',
    sa.Column('numero_membre', sa.String(length=30), nullable=False),
    sa.Column('prenom', sa.String(length=100), nullable=False),
    sa.Column('nom', sa.String(length=100), nullable=False),
    sa.Column('email', sa.String(length=254), nullable=True),
    sa.Column('telephone', sa.String(length=20), nullable=True),
    sa.Column('date_naissance', sa.Date(), nullable=True),
    sa.Column('genre', sa.String(length=10), nullable=True),
    sa.Column('profession', sa.String(length=100), nullable=True),
    sa.Column('adresse', sa.String(length=300), nullable=True),
    sa.Column('ville', sa.String(length=100), nullable=True),
    sa.Column('pays', sa.String(length=2), nullable=True),
    sa.Column('statut', sa.String(length=20), nullable=False),
    sa.Column('motif_statut', sa.String(length=500), nullable=True),
    sa.Column('date_statut', sa.DateTime(timezone=True), nullable=True),
    sa.Column('user_sub', sa.String(length=255), nullable=True),
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_membre')),
    sa.UniqueConstraint('email', name=op.f('uq_membre_email')),
    sa.UniqueConstraint('numero_membre', name=op.f('uq_membre_numero_membre')),
    sa.UniqueConstraint('user_sub', name=op.f('uq_membre_user_sub'))
    )
    with op.batch_alter_table('membre', schema=None) as batch_op:
        batch_op.create_index('ix_membre_nom_prenom', ['nom', 'prenom'], unique=False)
        batch_op.create_index(batch_op.f('ix_membre_statut'), ['statut'], unique=False)
        batch_op.create_index(batch_op.f('ix_membre_telephone'), ['telephone'], unique=False)

    op.create_table('organisation',
    sa.Column('nom', sa.String(length=200), nullable=False),
    sa.Column('nom_court', sa.String(length=50), nullable=True),
    sa.Column('type_organisation', sa.String(length=30), nullable=False),
    sa.Column('statut', sa.String(length=20), nullable=False),
    sa.Column('parent_id', sa.Uuid(), nullable=True),
    sa.Column('description', sa.Text(), nullable=True),
    sa.Column('email', sa.String(length=254), nullable=True),
    sa.Column('telephone', sa.String(length=20), nullable=True),
    sa.Column('adresse', sa.String(length=300), nullable=True),
    sa.Column('ville', sa.String(length=100), nullable=True),
    sa.Column('region', sa.String(length=100), nullable=True),
    sa.Column('pays', sa.String(length=2), nullable=False),
    sa.Column('devise', sa.String(length=3), nullable=False),
    sa.Column('motif_suspension', sa.String(length=500), nullable=True),
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['parent_id'], ['organisation.id'], name=op.f('fk_organisation_parent_id_organisation')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_organisation'))
    )
    with op.batch_alter_table('organisation', schema=None) as batch_op:
        batch_op.create_index('ix_organisation_nom_lower', ['nom'], unique=False)
        batch_op.create_index(batch_op.f('ix_organisation_parent_id'), ['parent_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_organisation_statut'), ['statut'], unique=False)
        batch_op.create_index(batch_op.f('ix_organisation_type_organisation'), ['type_organisation'], unique=False)

    op.create_table('signing_key',
    sa.Column('kid', sa.String(length=64), nullable=False),
    sa.Column('private_pem', sa.Text(), nullable=False),
    sa.Column('public_jwk', sa.JSON(), nullable=False),
    sa.Column('active', sa.Boolean(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('kid', name=op.f('pk_signing_key'))
    )
    op.create_table('utilisateur_local',
    sa.Column('email', sa.String(length=254), nullable=False),
    sa.Column('username', sa.String(length=254), nullable=False),
    sa.Column('prenom', sa.String(length=100), nullable=True),
    sa.Column('nom', sa.String(length=100), nullable=True),
    sa.Column('password_hash', sa.String(length=255), nullable=True),
    sa.Column('enabled', sa.Boolean(), nullable=False),
    sa.Column('email_verified', sa.Boolean(), nullable=False),
    sa.Column('realm_roles', sa.JSON(), nullable=False),
    sa.Column('password_changed_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('last_login_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_utilisateur_local')),
    sa.UniqueConstraint('email', name=op.f('uq_utilisateur_local_email')),
    sa.UniqueConstraint('username', name=op.f('uq_utilisateur_local_username'))
    )
    op.create_table('adhesion',
    sa.Column('numero_reference', sa.String(length=40), nullable=False),
    sa.Column('membre_id', sa.Uuid(), nullable=False),
    sa.Column('organisation_id', sa.Uuid(), nullable=False),
    sa.Column('statut', sa.String(length=20), nullable=False),
    sa.Column('date_demande', sa.Date(), nullable=False),
    sa.Column('frais_adhesion', sa.Numeric(precision=18, scale=2), nullable=False),
    sa.Column('montant_paye', sa.Numeric(precision=18, scale=2), nullable=False),
    sa.Column('devise', sa.String(length=3), nullable=False),
    sa.Column('methode_paiement', sa.String(length=30), nullable=True),
    sa.Column('reference_paiement', sa.String(length=100), nullable=True),
    sa.Column('date_paiement', sa.DateTime(timezone=True), nullable=True),
    sa.Column('date_approbation', sa.DateTime(timezone=True), nullable=True),
    sa.Column('approuve_par', sa.String(length=200), nullable=True),
    sa.Column('date_rejet', sa.DateTime(timezone=True), nullable=True),
    sa.Column('motif_rejet', sa.String(length=1000), nullable=True),
    sa.Column('date_annulation', sa.DateTime(timezone=True), nullable=True),
    sa.Column('observations', sa.Text(), nullable=True),
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['membre_id'], ['membre.id'], name=op.f('fk_adhesion_membre_id_membre')),
    sa.ForeignKeyConstraint(['organisation_id'], ['organisation.id'], name=op.f('fk_adhesion_organisation_id_organisation')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_adhesion')),
    sa.UniqueConstraint('numero_reference', name=op.f('uq_adhesion_numero_reference'))
    )
    with op.batch_alter_table('adhesion', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_adhesion_membre_id'), ['membre_id'], unique=False)
        batch_op.create_index('ix_adhesion_organisation_statut', ['organisation_id', 'statut'], unique=False)
        batch_op.create_index('ix_adhesion_statut_date', ['statut', 'date_demande'], unique=False)

    op.create_table('cotisation',
    sa.Column('numero_reference', sa.String(length=40), nullable=False),
    sa.Column('membre_id', sa.Uuid(), nullable=False),
    sa.Column('organisation_id', sa.Uuid(), nullable=False),
    sa.Column('type_cotisation', sa.String(length=30), nullable=False),
    sa.Column('libelle', sa.String(length=200), nullable=True),
    sa.Column('annee', sa.Integer(), nullable=False),
    sa.Column('mois', sa.Integer(), nullable=True),
    sa.Column('montant_du', sa.Numeric(precision=18, scale=2), nullable=False),
    sa.Column('montant_paye', sa.Numeric(precision=18, scale=2), nullable=False),
    sa.Column('devise', sa.String(length=3), nullable=False),
    sa.Column('date_echeance', sa.Date(), nullable=False),
    sa.Column('date_paiement', sa.DateTime(timezone=True), nullable=True),
    sa.Column('statut', sa.String(length=25), nullable=False),
    sa.Column('methode_paiement', sa.String(length=30), nullable=True),
    sa.Column('reference_paiement', sa.String(length=100), nullable=True),
    sa.Column('observations', sa.Text(), nullable=True),
    sa.Column('cle_generation', sa.String(length=200), nullable=True),
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['membre_id'], ['membre.id'], name=op.f('fk_cotisation_membre_id_membre')),
    sa.ForeignKeyConstraint(['organisation_id'], ['organisation.id'], name=op.f('fk_cotisation_organisation_id_organisation')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_cotisation')),
    sa.UniqueConstraint('cle_generation', name=op.f('uq_cotisation_cle_generation')),
    sa.UniqueConstraint('numero_reference', name=op.f('uq_cotisation_numero_reference'))
    )
    with op.batch_alter_table('cotisation', schema=None) as batch_op:
        batch_op.create_index('ix_cotisation_created', ['created_at', 'id'], unique=False)
        batch_op.create_index('ix_cotisation_membre_echeance', ['membre_id', 'date_echeance'], unique=False)
        batch_op.create_index('ix_cotisation_organisation_statut', ['organisation_id', 'statut'], unique=False)
        batch_op.create_index('ix_cotisation_periode', ['annee', 'mois'], unique=False)
        batch_op.create_index('ix_cotisation_statut_echeance', ['statut', 'date_echeance'], unique=False)

    op.create_table('membre_organisation',
    sa.Column('membre_id', sa.Uuid(), nullable=False),
    sa.Column('organisation_id', sa.Uuid(), nullable=False),
    sa.Column('roles', sa.JSON(), nullable=False),
    sa.Column('statut', sa.String(length=20), nullable=False),
    sa.Column('date_debut', sa.Date(), nullable=False),
    sa.Column('date_fin', sa.Date(), nullable=True),
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['membre_id'], ['membre.id'], name=op.f('fk_membre_organisation_membre_id_membre'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['organisation_id'], ['organisation.id'], name=op.f('fk_membre_organisation_organisation_id_organisation')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_membre_organisation')),
    sa.UniqueConstraint('membre_id', 'organisation_id', name=op.f('uq_membre_organisation_membre_id'))
    )
    with op.batch_alter_table('membre_organisation', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_membre_organisation_organisation_id'), ['organisation_id'], unique=False)

    op.create_table('paiement',
    sa.Column('numero_recu', sa.String(length=40), nullable=False),
    sa.Column('membre_id', sa.Uuid(), nullable=False),
    sa.Column('organisation_id', sa.Uuid(), nullable=False),
    sa.Column('montant', sa.Numeric(precision=18, scale=2), nullable=False),
    sa.Column('montant_non_affecte', sa.Numeric(precision=18, scale=2), nullable=False),
    sa.Column('devise', sa.String(length=3), nullable=False),
    sa.Column('methode', sa.String(length=20), nullable=False),
    sa.Column('statut', sa.String(length=20), nullable=False),
    sa.Column('reference_externe', sa.String(length=100), nullable=True),
    sa.Column('date_paiement', sa.DateTime(timezone=True), nullable=True),
    sa.Column('enregistre_par', sa.String(length=254), nullable=True),
    sa.Column('commentaire', sa.Text(), nullable=True),
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['membre_id'], ['membre.id'], name=op.f('fk_paiement_membre_id_membre')),
    sa.ForeignKeyConstraint(['organisation_id'], ['organisation.id'], name=op.f('fk_paiement_organisation_id_organisation')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_paiement')),
    sa.UniqueConstraint('numero_recu', name=op.f('uq_paiement_numero_recu'))
    )
    with op.batch_alter_table('paiement', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_paiement_membre_id'), ['membre_id'], unique=False)
        batch_op.create_index('ix_paiement_organisation_date', ['organisation_id', 'date_paiement'], unique=False)
        batch_op.create_index('ix_paiement_statut', ['statut'], unique=False)

    op.create_table('refresh_token',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('user_id', sa.Uuid(), nullable=False),
    sa.Column('token_hash', sa.String(length=64), nullable=False),
    sa.Column('family_id', sa.Uuid(), nullable=False),
    sa.Column('expires_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('revoked_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['user_id'], ['utilisateur_local.id'], name=op.f('fk_refresh_token_user_id_utilisateur_local'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_refresh_token')),
    sa.UniqueConstraint('token_hash', name=op.f('uq_refresh_token_token_hash'))
    )
    with op.batch_alter_table('refresh_token', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_refresh_token_family_id'), ['family_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_refresh_token_user_id'), ['user_id'], unique=False)

    op.create_table('paiement_allocation',
    sa.Column('paiement_id', sa.Uuid(), nullable=False),
    sa.Column('cotisation_id', sa.Uuid(), nullable=True),
    sa.Column('adhesion_id', sa.Uuid(), nullable=True),
    sa.Column('montant', sa.Numeric(precision=18, scale=2), nullable=False),
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.ForeignKeyConstraint(['adhesion_id'], ['adhesion.id'], name=op.f('fk_paiement_allocation_adhesion_id_adhesion')),
    sa.ForeignKeyConstraint(['cotisation_id'], ['cotisation.id'], name=op.f('fk_paiement_allocation_cotisation_id_cotisation')),
    sa.ForeignKeyConstraint(['paiement_id'], ['paiement.id'], name=op.f('fk_paiement_allocation_paiement_id_paiement'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_paiement_allocation'))
    )
    with op.batch_alter_table('paiement_allocation', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_paiement_allocation_adhesion_id'), ['adhesion_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_paiement_allocation_cotisation_id'), ['cotisation_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_paiement_allocation_paiement_id'), ['paiement_id'], unique=False)




def downgrade() -> None:

    with op.batch_alter_table('paiement_allocation', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_paiement_allocation_paiement_id'))
        batch_op.drop_index(batch_op.f('ix_paiement_allocation_cotisation_id'))
        batch_op.drop_index(batch_op.f('ix_paiement_allocation_adhesion_id'))

    op.drop_table('paiement_allocation')
    with op.batch_alter_table('refresh_token', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_refresh_token_user_id'))
        batch_op.drop_index(batch_op.f('ix_refresh_token_family_id'))

    op.drop_table('refresh_token')
    with op.batch_alter_table('paiement', schema=None) as batch_op:
        batch_op.drop_index('ix_paiement_statut')
        batch_op.drop_index('ix_paiement_organisation_date')
        batch_op.drop_index(batch_op.f('ix_paiement_membre_id'))

    op.drop_table('paiement')
    with op.batch_alter_table('membre_organisation', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_membre_organisation_organisation_id'))

    op.drop_table('membre_organisation')
    with op.batch_alter_table('cotisation', schema=None) as batch_op:
        batch_op.drop_index('ix_cotisation_statut_echeance')
        batch_op.drop_index('ix_cotisation_periode')
        batch_op.drop_index('ix_cotisation_organisation_statut')
        batch_op.drop_index('ix_cotisation_membre_echeance')
        batch_op.drop_index('ix_cotisation_created')

    op.drop_table('cotisation')
    with op.batch_alter_table('adhesion', schema=None) as batch_op:
        batch_op.drop_index('ix_adhesion_statut_date')
        batch_op.drop_index('ix_adhesion_organisation_statut')
        batch_op.drop_index(batch_op.f('ix_adhesion_membre_id'))

    op.drop_table('adhesion')
    op.drop_table('utilisateur_local')
    op.drop_table('signing_key')
    with op.batch_alter_table('organisation', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_organisation_type_organisation'))
        batch_op.drop_index(batch_op.f('ix_organisation_statut'))
        batch_op.drop_index(batch_op.f('ix_organisation_parent_id'))
        batch_op.drop_index('ix_organisation_nom_lower')

    op.drop_table('organisation')
    with op.batch_alter_table('membre', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_membre_telephone'))
        batch_op.drop_index(batch_op.f('ix_membre_statut'))
        batch_op.drop_index('ix_membre_nom_prenom')

    op.drop_table('membre')
    op.drop_table('login_throttle')
    op.drop_table('compteur')
    with op.batch_alter_table('audit_log', schema=None) as batch_op:
        batch_op.drop_index('ix_audit_log_organisation_date')
        batch_op.drop_index('ix_audit_log_module_date')
        batch_op.drop_index('ix_audit_log_entite')
        batch_op.drop_index('ix_audit_log_date_heure')

    op.drop_table('audit_log')

