"""Each field's reason of a refused form: the API problem's ``errors`` (its schema's, or ``lire_montant``'s) name
API body fields (camelCase); the console's form fields are their snake_case, or the names below."""

from __future__ import annotations

import re

from unionflow.core.errors import UnionFlowError

# API body names whose form field is named otherwise (the rest: camelCase → snake_case, « dateNaissance »
# → « date_naissance »).
CHAMPS_API = {"methode_paiement": "methode", "reference_paiement": "reference", "date_operation": "date",
              "tresorerie_source_id": "source", "tresorerie_destination_id": "destination",
              "date_echeance": "echeance", "montant_demande": "montant", "montant_accorde": "montant",
              "decouvert_autorise": "decouvert"}


def form_field(api_name: str) -> str:
    last = api_name.split(".")[-1] if "." in api_name and not api_name.split(".")[-1].isdigit() else api_name
    snake = re.sub(r"(?<!^)([A-Z])", r"_\1", last.split(".")[0]).lower()
    return CHAMPS_API.get(snake, snake)


def field_reasons(error: UnionFlowError) -> dict[str, str]:
    """Each field's reason, from the problem's ``errors`` (the API's schema, or ``lire_montant``)."""
    found: dict[str, str] = {}
    for item in error.extra.get("errors") or ():
        if isinstance(item, dict) and item.get("field") and item.get("message"):
            found.setdefault(form_field(str(item["field"])), str(item["message"]))
    return found
