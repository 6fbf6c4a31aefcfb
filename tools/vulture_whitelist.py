"""Names that look unused to vulture because a framework calls them (tools/verifier_code_mort.py reads this file
with the sources). One line per name, with who calls it. Routes, validators, SQLAlchemy compilers and event hooks
need no line: their decorators are ignored (IGNORER_DECORATEURS in tools/verifier_code_mort.py)."""

from vulture.whitelist_utils import Whitelist

framework = Whitelist()

framework.create_app  # uvicorn's application factory, named by string in cli.py ("unionflow.app:create_app")
framework.process_bind_param  # SQLAlchemy TypeDecorator hooks (models/base.py)
framework.process_result_value
framework.collect  # prometheus_client's Collector protocol (core/metrics.py)
framework.autogen_context  # a parameter of Alembic's render_item hook (migrations/env.py)

# The two repository bases of issue 18; the repositories of branch `portes` derive from them at merge.
framework.SystemRepository
framework.get_for_update

# Money areas: removed by branch argent (issue 18).
framework.can_see_books  # removed by branch argent (comptabilite/repository.py)
framework.aggregate_by_type  # removed by branch argent (cotisations/repository.py)
framework.is_member  # removed by branch argent (paiements/repository.py)
framework.target_ids  # removed by branch argent (paiements/repository.py)
framework.comptabiliser_paiement  # removed by branch argent (comptabilite/integration.py, used by a test only)
