"""Row builders for analytics tests: small data sets whose every figure is computed by hand in the tests.

``nouvelle_cotisation``, ``nouveau_paiement`` and ``nouvelle_adhesion`` build rows not yet added, with the amounts
paid and the statuses a figure needs; ``tests.factories.add`` writes them."""

from __future__ import annotations

from datetime import UTC, date, datetime
from decimal import Decimal

from tests.factories import Factory, add, ref
from unionflow.models import (
    Adhesion,
    Cotisation,
    Evenement,
    FeedbackEvenement,
    InscriptionEvenement,
    Membre,
    MembreOrganisation,
    Organisation,
    Paiement,
)

BASE = "/api/analytics"


def utc(*parts: int) -> datetime:
    return datetime(*parts, tzinfo=UTC)  # type: ignore[misc]


async def membership(factory: Factory, org: Organisation, debut: date, fin: date | None = None) -> None:
    m = await factory.membre(None)
    await add(factory, MembreOrganisation(membre_id=m.id, organisation_id=org.id, roles=["MEMBRE"], date_debut=debut,
                                          date_fin=fin, statut="TERMINE" if fin else "ACTIF"))


def nouvelle_cotisation(m: Membre, org: Organisation, echeance: date, du: str, paye: str = "0",
                        statut: str = "EN_ATTENTE", devise: str = "XOF") -> Cotisation:
    return Cotisation(numero_reference=ref("COT"), membre_id=m.id, organisation_id=org.id, type_cotisation="MENSUELLE",
                      annee=echeance.year, mois=echeance.month, montant_du=Decimal(du), montant_paye=Decimal(paye),
                      date_echeance=echeance, statut=statut, devise=devise)


def nouveau_paiement(m: Membre, org: Organisation, montant: str, methode: str, when: datetime,
                     statut: str = "VALIDE") -> Paiement:
    return Paiement(numero_recu=ref("REC"), membre_id=m.id, organisation_id=org.id, montant=Decimal(montant),
                    methode=methode, statut=statut, date_paiement=when)


def nouvelle_adhesion(m: Membre, org: Organisation, statut: str, demande: date, *, approuvee: bool = False,
                      paye: str = "0") -> Adhesion:
    return Adhesion(numero_reference=ref("ADH"), membre_id=m.id, organisation_id=org.id, statut=statut,
                    date_demande=demande, frais_adhesion=Decimal("10000"), montant_paye=Decimal(paye),
                    date_approbation=utc(demande.year, demande.month, demande.day, 12) if approuvee else None)


async def evenement(factory: Factory, org: Organisation, debut: datetime, capacite: int | None,
                    statut: str = "PLANIFIE", inscriptions: dict[str, int] | None = None,
                    notes: dict[str, list[int]] | None = None) -> Evenement:
    event = Evenement(titre="Assemblée", type_evenement="REUNION", date_debut=debut,
                      date_fin=debut.replace(hour=debut.hour + 2), capacite_max=capacite, organisation_id=org.id,
                      statut=statut)
    await add(factory, event)
    for statut_inscription, count in (inscriptions or {}).items():
        for _ in range(count):
            m = await factory.membre(None)
            await add(factory, InscriptionEvenement(evenement_id=event.id, membre_id=m.id, statut=statut_inscription))
    for moderation, values in (notes or {}).items():
        for note in values:
            m = await factory.membre(None)
            await add(factory, FeedbackEvenement(evenement_id=event.id, membre_id=m.id, note=note,
                                                 statut_moderation=moderation))
    return event
