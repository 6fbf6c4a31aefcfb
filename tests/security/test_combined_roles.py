"""Combined-role authorization, generated from the permission table (core/permissions.py, issue 8).

For each action permission, one representative endpoint is called through the app on a record of organisation
A, by callers holding every single organisation role and every pair of them in A, by the union's global roles,
and by callers holding roles in two organisations. Expected outcome, computed from ``GRANTS`` and the route's
role set: the action happens exactly when the route admits the caller and one of the roles he holds in the
record's organisation grants the permission; otherwise the answer is 403/404 and nothing changed.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from itertools import combinations

import pytest
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from tests.factories import Factory
from tests.factories.cotisations import adhesion, cotisation
from tests.factories.finance import demande_aide
from tests.security import combined_cases as more
from tests.security.catalog import guarded_endpoints
from tests.security.combined_cases import Call, World, scalar
from unionflow.core.permissions import GRANTS, Permission
from unionflow.core.roles import ORGANISATION_ROLES, ORGANISATION_STAFF_ROLES, Role
from unionflow.models import (
    Adhesion,
    CompteComptable,
    CompteWave,
    Cotisation,
    DemandeAide,
    DemandeApprobation,
    Evenement,
    JournalComptable,
    Membre,
    MembreOrganisation,
    Organisation,
    Paiement,
    Suggestion,
    VerrouComptable,
)
from unionflow.paiements.encaissement.workflow import Cible, EncaissementService

P = Permission
ORG_ROLES = sorted(ORGANISATION_ROLES)
COMBOS = [(r,) for r in ORG_ROLES] + list(combinations(ORG_ROLES, 2))
ROUTE_ROLES = {(e.method, e.path): e.declared or frozenset() for e in guarded_endpoints()}


async def _membership(db: AsyncSession, membre: Membre, org: Organisation) -> MembreOrganisation:
    return (await db.execute(select(MembreOrganisation).where(
        MembreOrganisation.membre_id == membre.id, MembreOrganisation.organisation_id == org.id)
        .execution_options(populate_existing=True))).scalar_one()


async def paiement_enregistrer(w: World) -> Call:
    due = await cotisation(w.db, w.owner, w.org, 5000)
    body = {"membreId": str(w.owner.id), "organisationId": str(w.org.id), "montant": "5000", "methode": "ESPECES",
            "cibles": [{"cotisationId": str(due.id)}]}

    async def done() -> bool:
        return await scalar(w.db, select(Cotisation.statut).where(Cotisation.id == due.id)) == "PAYEE"
    return Call("/api/paiements", body, done)


async def paiement_annuler(w: World) -> Call:
    due = await cotisation(w.db, w.owner, w.org, 5000)
    paiement = await EncaissementService(w.db, None).enregistrer(
        membre_id=w.owner.id, organisation_id=w.org.id, montant=Decimal("5000"), methode="ESPECES",
        cibles=[Cible(cotisation_id=due.id)])
    await w.db.flush()

    async def done() -> bool:
        # Issue 19: the action is the request (a second person approves, case annulation.approuver).
        return await scalar(w.db, select(func.count()).select_from(DemandeApprobation).where(
            DemandeApprobation.genre == "ANNULATION", DemandeApprobation.objet_id == paiement.id)) == 1
    return Call(f"/api/paiements/{paiement.id}/annuler", {"motif": "Saisie erronée"}, done)


async def annulation_approuver(w: World) -> Call:
    """A pending request to cancel a payment recorded by the system, asked by someone else than the caller."""
    due = await cotisation(w.db, w.owner, w.org, 5000)
    paiement = await EncaissementService(w.db, None).enregistrer(
        membre_id=w.owner.id, organisation_id=w.org.id, montant=Decimal("5000"), methode="ESPECES",
        cibles=[Cible(cotisation_id=due.id)])
    demande = DemandeApprobation(
        genre="ANNULATION", organisation_id=w.org.id, nature="ANNULATION_PAIEMENT", objet_id=paiement.id,
        details={"membre_id": str(w.owner.id), "reference": paiement.numero_recu}, montant=paiement.montant,
        devise="XOF", motif="Saisie erronée", statut="EN_ATTENTE", demande_par="autre@example.sn",
        demande_par_sub="autre", date_demande=datetime.now(UTC), niveaux_requis=1, niveau_atteint=0)
    w.db.add(demande)
    await w.db.flush()

    async def done() -> bool:
        return await scalar(w.db, select(Paiement.statut).where(Paiement.id == paiement.id)) == "ANNULE"
    return Call(f"/api/annulations/{demande.id}/approuver", {}, done)


async def ecriture_approuver(w: World) -> Call:
    """A pending manual entry on an account under control, asked by someone else than the caller."""
    journal = JournalComptable(organisation_id=w.org.id, code="OD", libelle="Opérations diverses",
                               type_journal="OPERATIONS_DIVERSES", actif=True)
    charge = CompteComptable(organisation_id=w.org.id, numero_compte="658", libelle="Charges", classe=6,
                             type_compte="CHARGES", actif=True, sous_controle=True)
    produit = CompteComptable(organisation_id=w.org.id, numero_compte="7581", libelle="Dons", classe=7,
                              type_compte="PRODUITS", actif=True)
    w.db.add_all([journal, charge, produit])
    await w.db.flush()
    demande = DemandeApprobation(
        genre="ECRITURE", organisation_id=w.org.id, montant=Decimal("500"), devise="XOF", motif="Don en nature",
        statut="EN_ATTENTE", demande_par="autre@example.sn", demande_par_sub="autre", date_demande=datetime.now(UTC),
        niveaux_requis=1, niveau_atteint=0, details={
            "journal_id": str(journal.id), "code_journal": "OD", "date_ecriture": date.today().isoformat(),
            "libelle": "Don en nature", "piece_reference": None,
            "lignes": [{"compte_id": str(charge.id), "debit": "500", "credit": "0", "libelle": None},
                       {"compte_id": str(produit.id), "debit": "0", "credit": "500", "libelle": None}]})
    w.db.add(demande)
    await w.db.flush()

    async def done() -> bool:
        return await scalar(w.db, select(DemandeApprobation.statut).where(
            DemandeApprobation.id == demande.id)) == "APPROUVEE"
    return Call(f"/api/comptabilite/demandes-ecritures/{demande.id}/approuver", {}, done)


async def cotisation_gerer(w: World) -> Call:
    due = await cotisation(w.db, w.owner, w.org, 5000)

    async def done() -> bool:
        return await scalar(w.db, select(Cotisation.libelle).where(Cotisation.id == due.id)) == "Modifiée"
    return Call(f"/api/cotisations/{due.id}", {"libelle": "Modifiée"}, done)


async def cotisation_generer(w: World) -> Call:
    annee = date.today().year + 1  # memberships start today; dues follow them (issue 20)
    body = {"organisationId": str(w.org.id), "typeCotisation": "MENSUELLE", "annee": annee, "mois": 5,
            "montant": "1000", "dateEcheance": f"{annee}-05-31"}

    async def done() -> bool:
        return await scalar(w.db, select(func.count()).select_from(Cotisation).where(
            Cotisation.organisation_id == w.org.id, Cotisation.mois == 5)) > 0
    return Call("/api/cotisations/generer", body, done)


async def cotisation_annuler(w: World) -> Call:
    due = await cotisation(w.db, w.owner, w.org, 5000)

    async def done() -> bool:
        return await scalar(w.db, select(Cotisation.statut).where(Cotisation.id == due.id)) == "ANNULEE"
    return Call("/api/cotisations/annulation", {"cotisationIds": [str(due.id)], "motif": "Générée à tort"}, done)


async def _applicant(w: World) -> Membre:
    return await w.factory.membre()


async def adhesion_decider(w: World) -> Call:
    row = await adhesion(w.db, await _applicant(w), w.org, 1000, statut="EN_ATTENTE")

    async def done() -> bool:
        return await scalar(w.db, select(Adhesion.statut).where(Adhesion.id == row.id)) == "APPROUVEE"
    return Call(f"/api/adhesions/{row.id}/approuver", None, done)


async def adhesion_annuler(w: World) -> Call:
    row = await adhesion(w.db, await _applicant(w), w.org, 1000, statut="EN_ATTENTE")

    async def done() -> bool:
        return await scalar(w.db, select(Adhesion.statut).where(Adhesion.id == row.id)) == "ANNULEE"
    return Call(f"/api/adhesions/{row.id}", None, done)


async def adhesion_inscrire(w: World) -> Call:
    former = await w.factory.membre(w.org)
    (await _membership(w.db, former, w.org)).statut = "TERMINE"
    await w.db.flush()

    async def done() -> bool:
        return await scalar(w.db, select(func.count()).select_from(Adhesion).where(
            Adhesion.membre_id == former.id)) > 0
    return Call("/api/adhesions", {"membreId": str(former.id), "organisationId": str(w.org.id)}, done)


async def membre_gerer(w: World) -> Call:
    async def done() -> bool:
        return (await _membership(w.db, w.owner, w.org)).statut == "TERMINE"
    return Call(f"/api/membres/{w.owner.id}/organisations/{w.org.id}/terminer", {}, done)


async def role_attribuer(w: World) -> Call:
    async def done() -> bool:
        return "SECRETAIRE" in ((await _membership(w.db, w.owner, w.org)).roles or [])
    return Call(f"/api/roles/membres/{w.owner.id}/organisations/{w.org.id}", ["MEMBRE", "SECRETAIRE"], done)


async def organisation_modifier(w: World) -> Call:
    async def done() -> bool:
        return await scalar(w.db, select(Organisation.description).where(Organisation.id == w.org.id)) == "Revue"
    return Call(f"/api/organisations/{w.org.id}", {"description": "Revue"}, done)


async def wave_compte_gerer(w: World) -> Call:
    body = {"organisationId": str(w.org.id), "libelle": "Caisse Wave", "numeroTelephone": "+221770000001"}

    async def done() -> bool:
        return await scalar(w.db, select(func.count()).select_from(CompteWave).where(
            CompteWave.organisation_id == w.org.id)) > 0
    return Call("/api/wave/comptes", body, done)


async def evenement_gerer(w: World) -> Call:
    debut = datetime.now(UTC).replace(microsecond=0) + timedelta(days=10)
    evt = Evenement(titre="Assemblée générale", type_evenement="REUNION", date_debut=debut,
                    date_fin=debut + timedelta(hours=2), organisation_id=w.org.id, statut="PLANIFIE")
    w.db.add(evt)
    await w.db.flush()

    async def done() -> bool:
        return await scalar(w.db, select(Evenement.statut).where(Evenement.id == evt.id)) == "ANNULE"
    return Call(f"/api/evenements/{evt.id}", None, done)


async def suggestion_traiter(w: World) -> Call:
    row = Suggestion(organisation_id=w.org.id, membre_id=w.owner.id, auteur_nom="Awa Diop", titre="Caisse",
                     description="Une caisse de solidarité", categorie="AUTRE")
    w.db.add(row)
    await w.db.flush()

    async def done() -> bool:
        return await scalar(w.db, select(Suggestion.statut).where(Suggestion.id == row.id)) == "EN_ETUDE"
    return Call(f"/api/suggestions/{row.id}/statut", {"statut": "EN_ETUDE"}, done)


async def aide_decider(w: World) -> Call:
    row = await demande_aide(w.db, w.org, w.owner, statut="SOUMISE", accorde=None)

    async def done() -> bool:
        return await scalar(w.db, select(DemandeAide.statut).where(DemandeAide.id == row.id)) == "APPROUVEE"
    return Call(f"/api/demandes-aide/{row.id}/approuver", None, done)


async def comptabilite_cloturer(w: World) -> Call:
    async def done() -> bool:
        return await scalar(w.db, select(func.count()).select_from(VerrouComptable).where(
            VerrouComptable.organisation_id == w.org.id)) > 0
    return Call("/api/comptabilite/verrouillage", {"organisationId": str(w.org.id), "dateVerrouillage": "2025-12-31"},
                done)


CASES: dict[Permission, tuple[str, str, Callable[[World], Awaitable[Call]]]] = {
    P.PAIEMENT_ENREGISTRER: ("POST", "/api/paiements", paiement_enregistrer),
    P.PAIEMENT_ANNULER: ("POST", "/api/paiements/{id}/annuler", paiement_annuler),
    P.COTISATION_GERER: ("PUT", "/api/cotisations/{id}", cotisation_gerer),
    P.COTISATION_GENERER: ("POST", "/api/cotisations/generer", cotisation_generer),
    P.COTISATION_ANNULER: ("POST", "/api/cotisations/annulation", cotisation_annuler),
    P.ADHESION_DECIDER: ("POST", "/api/adhesions/{id}/approuver", adhesion_decider),
    P.ADHESION_ANNULER: ("DELETE", "/api/adhesions/{id}", adhesion_annuler),
    P.ADHESION_INSCRIRE: ("POST", "/api/adhesions", adhesion_inscrire),
    P.MEMBRE_GERER: ("POST", "/api/membres/{id}/organisations/{organisationId}/terminer", membre_gerer),
    P.ROLE_ATTRIBUER: ("PUT", "/api/roles/membres/{membreId}/organisations/{organisationId}", role_attribuer),
    P.ORGANISATION_MODIFIER: ("PUT", "/api/organisations/{id}", organisation_modifier),
    P.WAVE_COMPTE_GERER: ("POST", "/api/wave/comptes", wave_compte_gerer),
    P.EVENEMENT_GERER: ("DELETE", "/api/evenements/{id}", evenement_gerer),
    P.SUGGESTION_TRAITER: ("POST", "/api/suggestions/{id}/statut", suggestion_traiter),
    P.AIDE_DECIDER: ("PUT", "/api/demandes-aide/{id}/approuver", aide_decider),
    P.COMPTABILITE_CLOTURER: ("PUT", "/api/comptabilite/verrouillage", comptabilite_cloturer),
    P.VERSEMENT_INITIER: ("POST", "/api/versements", more.versement_initier),
    P.VERSEMENT_CONFIRMER: ("POST", "/api/versements/{id}/confirmer", more.versement_confirmer),
    P.BUDGET_GERER: ("POST", "/api/finance/budgets/{id}/cloturer", more.budget_gerer),
    P.FINANCE_DECIDER: ("POST", "/api/finance/budgets/{id}/approuver", more.finance_decider),
    P.COMPTABILITE_ECRIRE: ("POST", "/api/comptabilite/comptes", more.comptabilite_ecrire),
    P.LCBFT_TRAITER: ("POST", "/api/alertes-lcb-ft/{id}/traiter", more.lcbft_traiter),
    P.FEEDBACK_MODERER: ("PUT", "/api/evenements/{id}/feedbacks/{feedbackId}/moderation", more.feedback_moderer),
    P.DOCUMENT_GERER: ("POST", "/api/documents", more.document_gerer),
    P.NOTIFICATION_ENVOYER: ("POST", "/api/notifications", more.notification_envoyer),
    P.TICKET_TRAITER: ("POST", "/api/tickets/{id}/statut", more.ticket_traiter),
    P.PROPOSITION_AIDE_GERER: ("POST", "/api/propositions-aide/{id}/cloturer", more.proposition_aide_gerer),
    P.NOTIFICATION_MODELE_GERER: ("POST", "/api/notifications/modeles", more.notification_modele_gerer),
    P.WEBHOOK_GERER: ("PUT", "/api/webhooks/abonnements/{id}", more.webhook_gerer),
    P.WAVE_RAPPROCHER: ("POST", "/api/wave/releves/{id}/rapprocher", more.wave_rapprocher),
    P.TRESORERIE_GERER: ("POST", "/api/tresoreries", more.tresorerie_gerer),
    P.AVOIR_IMPUTER: ("POST", "/api/avoirs/imputer", more.avoir_imputer),
    P.USSD_PIN_REINITIALISER: ("POST", "/api/ussd/pin/{membreId}/reinitialiser", more.ussd_pin_reinitialiser),
    P.CONSENTEMENT_RECUEILLIR: ("POST", "/api/donnees-personnelles/consentements", more.consentement_recueillir),
    P.CONFIGURATION_ORGANISATION_GERER: ("PUT", "/api/configuration/organisations/{organisationId}/{cle}",
                                         more.configuration_organisation_gerer),
    P.ANNULATION_APPROUVER: ("POST", "/api/annulations/{id}/approuver", annulation_approuver),
    P.ECRITURE_APPROUVER: ("POST", "/api/comptabilite/demandes-ecritures/{id}/approuver", ecriture_approuver),
    P.REFERENTIEL_CHOISIR: ("POST", "/api/configuration/organisations/{organisationId}/referentiel-comptable",
                            more.referentiel_choisir),
    P.DONNEES_EXPORTER: ("GET", "/api/membres/{id}/donnees", more.donnees_exporter),
    P.DONNEES_EFFACEMENT_DEMANDER: ("POST", "/api/membres/{id}/donnees/effacement", more.donnees_effacement_demander),
    P.DONNEES_EFFACEMENT_DECIDER: ("POST", "/api/donnees/effacements/{id}/approuver", more.donnees_effacement_decider),
    P.DONNEES_OPPOSITION_DEMANDER: ("POST", "/api/membres/{id}/donnees/oppositions",
                                    more.donnees_opposition_demander),
    P.DONNEES_OPPOSITION_DECIDER: ("POST", "/api/donnees/oppositions/{id}/approuver", more.donnees_opposition_decider),
    P.DONNEES_RECEPISSE_ENREGISTRER: ("POST", "/api/conformite/traitements/{code}/recepisse",
                                      more.donnees_recepisse_enregistrer),
    P.BENEVOLAT_ENREGISTRER: ("POST", "/api/comptabilite/benevolat", more.benevolat_enregistrer),
}


@dataclass(frozen=True)
class Caller:
    label: str
    realm: tuple[str, ...]
    in_record_org: tuple[str, ...]  # organisation roles in the record's organisation (empty: no membership)
    elsewhere: tuple[str, ...] = ()  # organisation roles in another organisation (empty: none)
    active: str | None = None  # "record" or "other": X-Active-Organisation-Id

    def effective(self) -> frozenset[str]:
        if self.active == "other" or (self.active is None and self.in_record_org and self.elsewhere):
            org_roles: frozenset[str] = frozenset({"MEMBRE"}) if self.active is None else frozenset(self.elsewhere)
        else:
            org_roles = frozenset(self.in_record_org)
        return frozenset(self.realm) | org_roles

    def acts_in_record_org(self) -> frozenset[str]:
        """Roles that count for the record's organisation (core/permissions.roles_for)."""
        held = frozenset(self.realm) & {Role.SUPER_ADMIN, Role.ADMIN}
        if self.active == "other":
            return held
        if self.active is None and self.elsewhere:
            return held | ({"MEMBRE"} if self.in_record_org else set())
        return held | frozenset(self.in_record_org)


def callers() -> list[Caller]:
    result = [Caller("+".join(c), ("USER",), c) for c in COMBOS]
    result += [Caller(r, (r,), ()) for r in ("SUPER_ADMIN", "ADMIN")]
    for role in sorted(ORGANISATION_STAFF_ROLES):
        # The role is held in another organisation, the caller is a plain member of the record's one.
        result.append(Caller(f"{role}@B,MEMBRE@A,actif B", ("USER",), ("MEMBRE",), (role,), "other"))
        result.append(Caller(f"{role}@B,MEMBRE@A,actif A", ("USER",), ("MEMBRE",), (role,), "record"))
        # The role is held in the record's organisation and the caller is a member elsewhere too.
        result.append(Caller(f"{role}@A,MEMBRE@B,actif A", ("USER",), (role, "MEMBRE"), ("MEMBRE",), "record"))
    return result


CALLERS = callers()


async def _actor(w: World, caller: Caller) -> dict[str, str]:
    other = await w.factory.organisation()
    actor = await w.factory.actor(list(caller.realm), organisation=w.org if caller.in_record_org else None,
                                  org_roles=list(caller.in_record_org) or None, with_membre=True)
    if caller.elsewhere:
        assert actor.membre is not None
        w.db.add(MembreOrganisation(membre_id=actor.membre.id, organisation_id=other.id,
                                    roles=list(caller.elsewhere), date_debut=date.today()))
        await w.db.flush()
    headers = dict(actor.headers)
    if caller.active is not None:
        headers["X-Active-Organisation-Id"] = str(w.org.id if caller.active == "record" else other.id)
    return headers


def test_every_permission_has_a_case_or_is_platform_wide():
    """Every organisation-scoped permission has a case; a permission added to the table shows up here until a case
    exercises it or it is listed as platform-wide (held by global roles only, on records of no organisation)."""
    platform_wide = {
        # tests/configuration, tests/backups, tests/clients_api.
        P.CONFIGURATION_GERER, P.SAUVEGARDE_RESTAURER, P.CLIENT_API_GERER,
    }
    assert set(Permission) == set(CASES) | platform_wide
    assert not set(CASES) & platform_wide
    assert all(GRANTS[p] <= {Role.SUPER_ADMIN, Role.ADMIN} for p in platform_wide)


@pytest.mark.parametrize("permission", list(CASES), ids=[p.value for p in CASES])
async def test_combined_roles(permission, client, db, factory):
    method, route, build = CASES[permission]
    route_roles = ROUTE_ROLES[(method, route)]
    failures = []
    outcomes = set()
    for caller in CALLERS:
        org = await factory.organisation()
        world = World(db, factory, org, await factory.membre(org))
        call = await build(world)
        headers = await _actor(world, caller)
        admitted = not route_roles.isdisjoint(caller.effective())
        allowed = admitted and not GRANTS[permission].isdisjoint(caller.acts_in_record_org())
        response = await client.request(method, call.url, json=call.json, headers=headers)
        happened = await call.done()
        outcomes.add(allowed)
        if allowed:
            ok = response.status_code < 300 and happened
        elif not admitted and caller.active is None and caller.elsewhere:
            ok = response.status_code in (400, 403) and not happened
        else:
            ok = response.status_code in (403, 404) and not happened
        if not ok:
            failures.append(f"{caller.label}: attendu {'autorisé' if allowed else 'refusé'}, "
                            f"{response.status_code} {response.text[:160]} (effet: {happened})")
    assert not failures, "\n".join(failures)
    assert outcomes == {True, False}, "the table must both allow and refuse some caller on this endpoint"


async def _treasury_case(factory: Factory, db: AsyncSession) -> tuple[Organisation, Membre, Cotisation]:
    org = await factory.organisation()
    owner = await factory.membre(org)
    return org, owner, await cotisation(db, owner, org, 5000)


async def test_member_and_event_organiser_cannot_pay_another_members_dues(client, db, factory):
    org, owner, due = await _treasury_case(factory, db)
    caller = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "ORGANISATEUR_EVENEMENT"])
    response = await client.put(f"/api/cotisations/{due.id}/payer", headers=caller.headers,
                                json={"montant": "5000", "methodePaiement": "ESPECES"})
    assert response.status_code in (403, 404), response.text
    await db.refresh(due)
    assert due.statut == "EN_ATTENTE" and due.montant_paye == Decimal("0")
    assert await db.scalar(select(func.count()).select_from(Paiement).where(Paiement.membre_id == owner.id)) == 0


async def test_treasurer_of_a_acting_on_b_records_gets_404(client, db, factory):
    _, _, due_b = await _treasury_case(factory, db)
    org_a = await factory.organisation()
    treasurer_a = await factory.actor(["USER"], organisation=org_a, org_roles=["MEMBRE", "TRESORIER"])
    paid = await client.put(f"/api/cotisations/{due_b.id}/payer", headers=treasurer_a.headers,
                            json={"montant": "5000"})
    assert paid.status_code == 404
    edited = await client.put(f"/api/cotisations/{due_b.id}", headers=treasurer_a.headers, json={"libelle": "x"})
    assert edited.status_code == 404
    manual = await client.post("/api/paiements", headers=treasurer_a.headers, json={
        "membreId": str(due_b.membre_id), "organisationId": str(due_b.organisation_id), "montant": "5000",
        "methode": "ESPECES", "cibles": [{"cotisationId": str(due_b.id)}]})
    assert manual.status_code == 404
    await db.refresh(due_b)
    assert due_b.statut == "EN_ATTENTE" and due_b.montant_paye == Decimal("0")


async def test_staff_of_two_organisations_is_asked_for_the_active_one(client, db, factory):
    """Issue 8, item 5: the treasurer of A who is also a member of B is not silently refused."""
    org, owner, due = await _treasury_case(factory, db)
    treasurer = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    db.add(MembreOrganisation(membre_id=treasurer.membre.id, organisation_id=(await factory.organisation()).id,
                              roles=["MEMBRE"], date_debut=date.today()))
    await db.flush()
    body = {"membreId": str(owner.id), "organisationId": str(org.id), "montant": "5000", "methode": "ESPECES",
            "cibles": [{"cotisationId": str(due.id)}]}
    ambiguous = await client.post("/api/paiements", headers=treasurer.headers, json=body)
    assert ambiguous.status_code == 400 and "X-Active-Organisation-Id" in ambiguous.json()["detail"]
    own_due = await cotisation(db, treasurer.membre, org, 2000)
    own = await client.put(f"/api/cotisations/{own_due.id}/payer", headers=treasurer.headers,
                           json={"montant": "2000"})
    assert own.status_code == 400 and "X-Active-Organisation-Id" in own.json()["detail"]
    recorded = await client.post("/api/paiements", headers=treasurer.in_org(org.id), json=body)
    assert recorded.status_code == 201, recorded.text
