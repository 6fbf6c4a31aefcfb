"""A federation with two mutuals, their bureaus and members."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tests.factories import Actor
from unionflow.models import Organisation


@dataclass
class Reseau:
    federation: Organisation
    mutuelle: Organisation
    soeur: Organisation
    tresorier_federation: Actor
    president_federation: Actor
    tresorier: Actor  # the first mutual's
    second: Actor  # the first mutual's administrator: confirms its payouts
    president: Actor  # the first mutual's president: approves cancellations
    tresorier_soeur: Actor
    membres: list[Actor]


async def reseau(factory: Any) -> Reseau:
    federation = await factory.organisation(type_organisation="FEDERATION")
    mutuelle = await factory.organisation(type_organisation="MUTUELLE", parent_id=federation.id)
    soeur = await factory.organisation(type_organisation="MUTUELLE", parent_id=federation.id)

    async def role(org: Organisation, name: str) -> Actor:
        actor: Actor = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", name])
        return actor

    return Reseau(
        federation=federation, mutuelle=mutuelle, soeur=soeur,
        tresorier_federation=await role(federation, "TRESORIER"),
        president_federation=await role(federation, "PRESIDENT"),
        tresorier=await role(mutuelle, "TRESORIER"), second=await role(mutuelle, "ADMIN_ORGANISATION"),
        president=await role(mutuelle, "PRESIDENT"), tresorier_soeur=await role(soeur, "TRESORIER"),
        membres=[await factory.actor(["USER"], organisation=o, org_roles=["MEMBRE"])
                 for o in (mutuelle, mutuelle, soeur)])
