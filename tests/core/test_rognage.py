"""Input strings are trimmed before validation, and the published schema says so on every constrained string
(issue 21, finding 9): "SN " is accepted as "SN" for ``^[A-Z]{2}$``, "ab\\u00a0" is refused for ``minLength: 3``."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from unionflow.core.schemas import TRIM_EXTENSION, TRIM_NOTE
from unionflow.organisations.schemas import CreateOrganisationRequest
from unionflow.propositions_aide.schemas import CreatePropositionAideRequest


def test_the_server_trims_then_validates():
    assert CreateOrganisationRequest.model_validate(
        {"nom": "Union", "typeOrganisation": "ASSOCIATION", "pays": "SN "}).pays == "SN"
    with pytest.raises(ValidationError, match="at least 3"):
        CreatePropositionAideRequest.model_validate({"titre": "ab\u00a0"})


async def test_every_constrained_input_string_states_the_trimming(client):
    schemas = (await client.get("/openapi.json")).json()["components"]["schemas"]
    organisation = schemas["CreateOrganisationRequest"]["properties"]["pays"]
    assert organisation[TRIM_EXTENSION] is True and TRIM_NOTE in organisation["description"]
    titre = schemas["CreatePropositionAideRequest"]["properties"]["titre"]
    assert titre[TRIM_EXTENSION] is True and TRIM_NOTE in titre["description"]
    missing = []
    for name, schema in schemas.items():
        if not name.endswith("Request"):
            continue
        for field, prop in schema.get("properties", {}).items():
            branches = prop.get("anyOf", [prop])
            constrained = any(b.get("type") == "string" and b.get("format") != "decimal"
                              and {"minLength", "maxLength", "pattern"} & b.keys() for b in branches)
            if constrained and not prop.get(TRIM_EXTENSION):
                missing.append(f"{name}.{field}")
    assert not missing, missing
