"""identite_emetteur: a person is (issuer, subject) — member links and audit entries name the token's issuer

Revision ID: 0014_identite_emetteur
Revises: 0013_synthese_cotisations

``membre.user_iss`` joins ``user_sub``: the link is unique per (issuer, subject), no longer per subject, so a
token of another issuer whose ``sub`` happens to equal a local account's id is not that account's member.
Existing links were all made to local accounts (the only links UnionFlow writes), so they are backfilled with the
built-in issuer of the settings the migration runs with (``UNIONFLOW_BUILTIN_ISSUER``, else
``UNIONFLOW_PUBLIC_BASE_URL``): run it with the service's own settings. ``audit_log.utilisateur_emetteur`` records
the issuer of the actor's token from now on; older entries keep it null (not recorded then).
``utilisateur_local.password_change_required``: a password set by someone else (bootstrap, an administrator's
reset) must be changed by its owner before the account may do anything else (existing accounts: false).

SQLite cannot drop a table-level unique constraint: the table is rebuilt (batch mode), with foreign-key
enforcement off (migrations/env.py), or dropping the old ``membre`` would cascade to its memberships; the rows
referencing members are checked (``PRAGMA foreign_key_check``) after the rebuild.
"""
from collections.abc import Callable, Sequence

import sqlalchemy as sa
from alembic import op
from alembic.operations import BatchOperations

from unionflow.config import get_settings

revision: str = "0014_identite_emetteur"
down_revision: str | Sequence[str] | None = "0013_synthese_cotisations"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _dangling() -> set[tuple[object, ...]]:
    """Rows whose reference to a member dangles (PRAGMA foreign_key_check: table, rowid, parent, fk index)."""
    return {tuple(r) for r in op.get_bind().exec_driver_sql("PRAGMA foreign_key_check") if r[2] == "membre"}


def _rebuild(change: Callable[[BatchOperations], None]) -> None:
    sqlite = op.get_bind().dialect.name == "sqlite"
    before = _dangling() if sqlite else set()
    with op.batch_alter_table("membre", schema=None) as batch_op:
        change(batch_op)
    if sqlite and _dangling() - before:
        raise RuntimeError("rows referencing membre lost their member while rebuilding the table")


def upgrade() -> None:
    def change(batch_op: BatchOperations) -> None:
        batch_op.add_column(sa.Column("user_iss", sa.String(length=255), nullable=True))
        batch_op.drop_constraint("uq_membre_user_sub", type_="unique")
        batch_op.create_unique_constraint("uq_membre_user_iss", ["user_iss", "user_sub"])

    _rebuild(change)
    op.get_bind().execute(sa.text("UPDATE membre SET user_iss = :issuer WHERE user_sub IS NOT NULL"),
                          {"issuer": get_settings().issuer})
    with op.batch_alter_table("audit_log", schema=None) as batch_op:
        batch_op.add_column(sa.Column("utilisateur_emetteur", sa.String(length=255), nullable=True))
    with op.batch_alter_table("utilisateur_local", schema=None) as batch_op:
        batch_op.add_column(sa.Column("password_change_required", sa.Boolean(), server_default=sa.false(),
                                      nullable=False))


def downgrade() -> None:
    with op.batch_alter_table("utilisateur_local", schema=None) as batch_op:
        batch_op.drop_column("password_change_required")
    with op.batch_alter_table("audit_log", schema=None) as batch_op:
        batch_op.drop_column("utilisateur_emetteur")
    # Links of other issuers cannot be kept under a per-subject constraint: they are dropped (the member stays).
    op.get_bind().execute(sa.text("UPDATE membre SET user_sub = NULL WHERE user_iss IS NOT NULL AND user_iss <> :issuer"),
                          {"issuer": get_settings().issuer})

    def change(batch_op: BatchOperations) -> None:
        batch_op.drop_constraint("uq_membre_user_iss", type_="unique")
        batch_op.drop_column("user_iss")
        batch_op.create_unique_constraint("uq_membre_user_sub", ["user_sub"])

    _rebuild(change)
