"""Dues with a payment code, for the tests of paying by code."""

from __future__ import annotations

from typing import Any

from tests.factories.cotisations import cotisation
from unionflow.core.code_paiement import nouveau_code
from unionflow.models import Cotisation

PUBLIC = "/api/paiements/par-code"
SECRET = "wave-test-webhook-secret"
WEBHOOK = "/api/paiements/wave/webhook"


async def dues_avec_code(db: Any, membre: Any, org: Any, montant: int = 5000, **values: Any) -> Cotisation:
    return await cotisation(db, membre, org, montant, code_paiement=nouveau_code(), **values)
