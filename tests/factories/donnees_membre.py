"""A member with money and traces across areas, for the access and erasure tests (Loi 2008-12)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tests.factories import Actor
from tests.factories.paiements import encaisser
from unionflow.models import Organisation
from unionflow.models.notification import Notification


@dataclass
class Dossier:
    org: Organisation
    tresorier: Actor
    president: Actor
    admin: Actor
    membre: Actor
    paiement: dict[str, Any]


async def dossier(client: Any, factory: Any, db: Any) -> Dossier:
    org = await factory.organisation()
    tresorier = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    president = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "PRESIDENT"])
    admin = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "ADMIN_ORGANISATION"])
    membre = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    assert membre.membre is not None
    membre.membre.prenom, membre.membre.nom = "Ndèye Fatou", "Sarr-Gueye"
    membre.membre.telephone, membre.membre.adresse = "+221770000042", "Rue 10, Médina"
    paiement = await encaisser(client, db, org, tresorier, membre, "7500", "ESPECES")
    db.add(Notification(membre_id=membre.membre.id, organisation_id=org.id, type_notification="INFORMATION",
                        canal="EMAIL", adresse=membre.membre.email, sujet="Bonjour Ndèye Fatou",
                        corps="Bonjour Ndèye Fatou Sarr-Gueye, votre reçu est prêt", statut="ENVOYEE"))
    await db.flush()
    return Dossier(org, tresorier, president, admin, membre, paiement)
