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

framework.footer  # fpdf2 calls FPDF.header/footer on every page (core/pdf_etats.py)
framework.invalide  # console/pages.py Ctx.invalide, called by the Jinja templates ({{ ctx.invalide("montant") }})
framework.typed_row  # console/pages.py Ctx.typed_row, called by the Jinja templates of row forms
framework.tables_non_couvertes  # the register's coverage check (tests/donnees_personnelles/test_registre_*.py)
