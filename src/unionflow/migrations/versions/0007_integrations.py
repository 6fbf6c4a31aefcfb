"""integrations: API clients (client credentials), webhook subscriptions and their delivery outbox

Revision ID: 0007_integrations
Revises: 0006_tresorier
"""
from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "0007_integrations"
down_revision: str | Sequence[str] | None = "0006_tresorier"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _timestamps() -> list[sa.Column[Any]]:
    return [sa.Column("id", sa.Uuid(), nullable=False),
            sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
            sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False)]


def upgrade() -> None:
    op.create_table(
        "client_api",
        sa.Column("client_id", sa.String(length=64), nullable=False),
        sa.Column("nom", sa.String(length=200), nullable=False),
        sa.Column("description", sa.String(length=1000), nullable=True),
        sa.Column("secret_hash", sa.String(length=255), nullable=False),
        sa.Column("roles", sa.JSON(), nullable=False),
        sa.Column("organisation_ids", sa.JSON(), nullable=False),
        sa.Column("actif", sa.Boolean(), nullable=False),
        sa.Column("cree_par", sa.String(length=254), nullable=True),
        sa.Column("revoque_le", sa.DateTime(timezone=True), nullable=True),
        sa.Column("revoque_par", sa.String(length=254), nullable=True),
        sa.Column("derniere_utilisation", sa.DateTime(timezone=True), nullable=True),
        *_timestamps(),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_client_api")),
        sa.UniqueConstraint("client_id", name=op.f("uq_client_api_client_id")),
    )
    op.create_table(
        "abonnement_webhook",
        sa.Column("organisation_id", sa.Uuid(), nullable=False),
        sa.Column("url", sa.String(length=2000), nullable=False),
        sa.Column("description", sa.String(length=500), nullable=True),
        sa.Column("evenements", sa.JSON(), nullable=False),
        sa.Column("secret", sa.String(length=128), nullable=False),
        sa.Column("actif", sa.Boolean(), nullable=False),
        sa.Column("echecs_consecutifs", sa.Integer(), nullable=False),
        sa.Column("desactive_le", sa.DateTime(timezone=True), nullable=True),
        sa.Column("motif_desactivation", sa.String(length=500), nullable=True),
        sa.Column("cree_par", sa.String(length=254), nullable=True),
        *_timestamps(),
        sa.ForeignKeyConstraint(["organisation_id"], ["organisation.id"], ondelete="CASCADE",
                                name=op.f("fk_abonnement_webhook_organisation_id_organisation")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_abonnement_webhook")),
    )
    op.create_index(op.f("ix_abonnement_webhook_organisation_id"), "abonnement_webhook", ["organisation_id"])
    op.create_table(
        "livraison_webhook",
        sa.Column("abonnement_id", sa.Uuid(), nullable=False),
        sa.Column("organisation_id", sa.Uuid(), nullable=False),
        sa.Column("evenement", sa.String(length=60), nullable=False),
        sa.Column("evenement_id", sa.Uuid(), nullable=False),
        sa.Column("charge", sa.JSON(), nullable=False),
        sa.Column("statut", sa.String(length=20), nullable=False),
        sa.Column("tentatives", sa.Integer(), nullable=False),
        sa.Column("historique", sa.JSON(), nullable=False),
        sa.Column("dernier_code_http", sa.Integer(), nullable=True),
        sa.Column("derniere_erreur", sa.String(length=1000), nullable=True),
        sa.Column("prochaine_tentative", sa.DateTime(timezone=True), nullable=True),
        sa.Column("verrouillee_jusqua", sa.DateTime(timezone=True), nullable=True),
        sa.Column("date_livraison", sa.DateTime(timezone=True), nullable=True),
        sa.Column("rejeu_de", sa.Uuid(), nullable=True),
        *_timestamps(),
        sa.ForeignKeyConstraint(["abonnement_id"], ["abonnement_webhook.id"], ondelete="CASCADE",
                                name=op.f("fk_livraison_webhook_abonnement_id_abonnement_webhook")),
        sa.ForeignKeyConstraint(["organisation_id"], ["organisation.id"], ondelete="CASCADE",
                                name=op.f("fk_livraison_webhook_organisation_id_organisation")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_livraison_webhook")),
    )
    op.create_index(op.f("ix_livraison_webhook_organisation_id"), "livraison_webhook", ["organisation_id"])
    op.create_index("ix_livraison_webhook_statut_prochaine", "livraison_webhook", ["statut", "prochaine_tentative"])
    op.create_index("ix_livraison_webhook_abonnement_created", "livraison_webhook", ["abonnement_id", "created_at"])


def downgrade() -> None:
    op.drop_table("livraison_webhook")
    op.drop_table("abonnement_webhook")
    op.drop_table("client_api")
