"""A small, fully known data set for export tests: rows inserted directly (their own areas test the workflows)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

from tests.factories import Actor, Factory, add
from unionflow.cotisations.service import today_utc
from unionflow.models import (
    Adhesion,
    AuditLog,
    CompteComptable,
    Cotisation,
    EcritureComptable,
    JournalComptable,
    LigneEcriture,
    Membre,
    Organisation,
    Paiement,
)


@dataclass
class Dataset:
    org_a: Organisation
    org_b: Organisation
    admin: Actor
    admin_org: Actor
    treasurer: Actor
    secretary: Actor
    member: Actor
    m1: Membre
    m2: Membre
    m3: Membre
    journal_a: JournalComptable
    journal_b: JournalComptable


async def build(factory: Factory) -> Dataset:
    org_a = await factory.organisation(nom="Association Alpha")
    org_b = await factory.organisation(nom="Association Beta")
    admin = await factory.actor(["ADMIN"], with_membre=False)
    admin_org = await factory.actor(["USER"], organisation=org_a, org_roles=["MEMBRE", "ADMIN_ORGANISATION"])
    treasurer = await factory.actor(["USER"], organisation=org_a, org_roles=["MEMBRE", "TRESORIER"])
    secretary = await factory.actor(["USER"], organisation=org_a, org_roles=["MEMBRE", "SECRETAIRE"])
    member = await factory.actor(["MEMBRE"], organisation=org_a)
    m1 = await factory.membre(org_a, numero_membre="MBR-X-0001", nom="Diop", prenom="Awa",
                              telephone="+221770000001", profession="Couturière; brodeuse")
    m2 = await factory.membre(org_a, numero_membre="MBR-X-0002", nom='=HYPERLINK("http://x")', prenom="@Moussa",
                              profession='Dit "le sage"')
    m3 = await factory.membre(org_b, numero_membre="MBR-X-0003", nom="Ndiaye", prenom="Fatou")
    today = today_utc()
    await add(
        factory,
        Cotisation(numero_reference="COT-X-1", membre_id=m1.id, organisation_id=org_a.id, type_cotisation="MENSUELLE",
                   libelle="Mars", annee=2026, mois=3, montant_du=Decimal("5000"), montant_paye=Decimal("5000"),
                   date_echeance=today + timedelta(days=10), statut="PAYEE", methode_paiement="WAVE",
                   date_paiement=datetime(2026, 3, 10, 9, 30, tzinfo=UTC)),
        Cotisation(numero_reference="COT-X-2", membre_id=m2.id, organisation_id=org_a.id, type_cotisation="MENSUELLE",
                   libelle="Mars", annee=2026, mois=3, montant_du=Decimal("3000"), montant_paye=Decimal("1000"),
                   date_echeance=today - timedelta(days=5), statut="PARTIELLEMENT_PAYEE"),
        Cotisation(numero_reference="COT-X-3", membre_id=m1.id, organisation_id=org_a.id, type_cotisation="MENSUELLE",
                   libelle="Avril", annee=2026, mois=4, montant_du=Decimal("5000"),
                   date_echeance=today + timedelta(days=40), statut="ANNULEE"),
        Cotisation(numero_reference="COT-X-4", membre_id=m3.id, organisation_id=org_b.id, type_cotisation="MENSUELLE",
                   annee=2026, mois=3, montant_du=Decimal("2000"), date_echeance=today + timedelta(days=10)),
        Paiement(numero_recu="REC-X-1", membre_id=m1.id, organisation_id=org_a.id, montant=Decimal("5000"),
                 methode="WAVE", statut="VALIDE", date_paiement=datetime(2026, 3, 10, 9, 30, tzinfo=UTC),
                 reference_externe="T_123"),
        Paiement(numero_recu="REC-X-2", membre_id=m2.id, organisation_id=org_a.id, montant=Decimal("1000.50"),
                 methode="ESPECES", statut="VALIDE", date_paiement=datetime(2026, 4, 2, 23, 59, tzinfo=UTC),
                 commentaire="-reçu manuel"),
        Paiement(numero_recu="REC-X-3", membre_id=m2.id, organisation_id=org_a.id, montant=Decimal("700"),
                 methode="WAVE", statut="ECHOUE", date_paiement=datetime(2026, 4, 3, 8, 0, tzinfo=UTC)),
        Paiement(numero_recu="REC-X-4", membre_id=m3.id, organisation_id=org_b.id, montant=Decimal("2000"),
                 methode="WAVE", statut="VALIDE", date_paiement=datetime(2026, 3, 11, 8, 0, tzinfo=UTC)),
        Adhesion(numero_reference="ADH-X-1", membre_id=m1.id, organisation_id=org_a.id, statut="PAYEE",
                 date_demande=date(2026, 1, 5), frais_adhesion=Decimal("10000"), montant_paye=Decimal("10000")),
        Adhesion(numero_reference="ADH-X-2", membre_id=m2.id, organisation_id=org_a.id, statut="REJETEE",
                 date_demande=date(2026, 2, 5), frais_adhesion=Decimal("10000"), motif_rejet="Dossier incomplet"),
        Adhesion(numero_reference="ADH-X-3", membre_id=m3.id, organisation_id=org_b.id, statut="EN_ATTENTE",
                 date_demande=date(2026, 1, 20), frais_adhesion=Decimal("5000")),
    )
    journal_a = await _books(factory, org_a, "Cotisation Awa Diop", Decimal("5000"))
    journal_b = await _books(factory, org_b, "Cotisation Fatou Ndiaye", Decimal("2000"))
    await add(
        factory,
        AuditLog(date_heure=datetime(2026, 3, 1, 10, 0, tzinfo=UTC), utilisateur="a@x.sn", organisation_id=org_a.id,
                 type_action="MODIFIER", module="MEMBRES", severite="INFO", description="=cmd|' /C calc'!A0"),
        AuditLog(date_heure=datetime(2026, 3, 2, 10, 0, tzinfo=UTC), utilisateur="b@x.sn", organisation_id=org_a.id,
                 type_action="SUPPRIMER", module="COTISATIONS", severite="WARNING"),
        AuditLog(date_heure=datetime(2026, 3, 3, 10, 0, tzinfo=UTC), utilisateur="c@x.sn", organisation_id=org_b.id,
                 type_action="MODIFIER", module="MEMBRES", severite="INFO"),
        AuditLog(date_heure=datetime(2026, 4, 1, 10, 0, tzinfo=UTC), utilisateur="d@x.sn", organisation_id=org_a.id,
                 type_action="CREER", module="MEMBRES", severite="INFO"),
    )
    return Dataset(org_a, org_b, admin, admin_org, treasurer, secretary, member, m1, m2, m3, journal_a, journal_b)


async def _books(factory: Factory, org: Organisation, libelle: str, montant: Decimal) -> JournalComptable:
    banque = CompteComptable(organisation_id=org.id, numero_compte="521000", libelle="Banque", classe=5,
                             type_compte="TRESORERIE")
    cotis = CompteComptable(organisation_id=org.id, numero_compte="756000", libelle="Cotisations", classe=7,
                            type_compte="PRODUIT")
    journal = JournalComptable(organisation_id=org.id, code="BQ", libelle="Banque", type_journal="BANQUE")
    await add(factory, banque, cotis, journal)
    for seq, day in ((1, date(2026, 3, 10)), (2, date(2026, 4, 10))):
        await add(factory, EcritureComptable(
            organisation_id=org.id, journal_id=journal.id, numero_piece=f"BQ-2026-{seq:05d}", annee=2026,
            sequence=seq, date_ecriture=day, libelle=libelle, montant_total=montant,
            lignes=[LigneEcriture(compte_id=banque.id, ordre=1, debit=montant, credit=Decimal("0")),
                    LigneEcriture(compte_id=cotis.id, ordre=2, debit=Decimal("0"), credit=montant)]))
    return journal
