"""A national number its country's numbering plan rules out is refused with the reason (core/telephone.py), by
the member API as by the import; local numbers typed in an import gain the organisation's calling code."""

from __future__ import annotations

import uuid

import pytest

from unionflow.core.telephone import REGLES, motif_invalide, normaliser

VALIDES = ["+221771234567", "+221338211234", "+2250707123456", "+22376123456", "+22670123456", "+22790123456",
           "+22890123456", "+2290197123456", "+22997123456", "+224621234567", "+33612345678"]
INVALIDES = ["+22177123", "+221612345678", "+2217712345678", "+225070712345", "+2237612345", "+226701234567",
             "+2299712345", "+22462123456"]


@pytest.mark.parametrize("numero", VALIDES)
def test_valid_numbers_pass(numero):
    assert motif_invalide(numero) is None


@pytest.mark.parametrize("numero", INVALIDES)
def test_impossible_numbers_say_why(numero):
    motif = motif_invalide(numero)
    indicatif = next(i for i in REGLES if numero.startswith("+" + i))
    assert motif is not None and REGLES[indicatif].pays in motif and REGLES[indicatif].attendu in motif, motif


@pytest.mark.parametrize(("brut", "pays", "attendu"), [
    ("77 123 45 67", "SN", "+221771234567"), ("221771234567", "SN", "+221771234567"),
    ("00221 77 123 45 67", "CI", "+221771234567"), ("07 07 12 34 56", "CI", "+2250707123456"),
    ("2721234567", "CI", "+2252721234567"), ("2250707123456", "CI", "+2250707123456"),
    ("01 97 12 34 56", "BJ", "+2290197123456"), ("77123", "SN", "+22177123"),
])
def test_what_is_typed_becomes_e164(brut, pays, attendu):
    assert normaliser(brut, pays) == attendu


async def test_the_member_api_refuses_an_impossible_number_with_the_reason(client, factory):
    admin = await factory.actor(["ADMIN"], with_membre=False)
    body = {"prenom": "Moussa", "nom": "Diop", "email": f"m.{uuid.uuid4().hex[:8]}@example.sn"}
    refused = await client.post("/api/membres", headers=admin.headers, json={**body, "telephone": "+22177123"})
    assert refused.status_code == 400, refused.text
    assert "Sénégal" in refused.text and "9 chiffres" in refused.text
    created = await client.post("/api/membres", headers=admin.headers, json={**body, "telephone": "+2250707123456"})
    assert created.status_code == 201, created.text
    update = await client.put(f"/api/membres/{created.json()['id']}", headers=admin.headers,
                              json={"telephone": "+22370123"})
    assert update.status_code == 400 and "Mali" in update.text and "8 chiffres" in update.text


async def test_the_own_profile_is_checked_too(client, factory):
    member = await factory.actor(["USER"], organisation=await factory.organisation())
    refused = await client.put("/api/membres/me", headers=member.headers, json={"telephone": "+221612345678"})
    assert refused.status_code == 400 and "commençant par 7 ou 3" in refused.text, refused.text
    accepted = await client.put("/api/membres/me", headers=member.headers, json={"telephone": "+221781234567"})
    assert accepted.status_code == 200 and accepted.json()["telephone"] == "+221781234567"
