"""Who may act: named permissions for every state change or money movement, and the one table granting them.

Visibility (``core/visibility.py``, repositories) decides which rows a caller may *read*; this table decides
what the caller may *do* to a row it can see. A service first loads the record through its scoped repository
(invisible → 404), then asks ``auth.can(Permission.X, record.organisation_id)`` (visible but not permitted → 403).

How a permission is held for an organisation (``roles_for`` below):
- a global realm role (SUPER_ADMIN, ADMIN) grants its permissions for every organisation;
- a role of the caller's active membership in that organisation grants its permissions there only;
- a realm-level organisation role (e.g. ADMIN_ORGANISATION in a Keycloak token) grants them in the
  organisations where the caller holds an active membership;
- ``X-Active-Organisation-Id`` restricts organisation roles to that organisation; ``X-Active-Role`` restricts
  everything to that one role.

Each permission is one line of ``GRANTS`` (permission → roles), so the table reads as the authorisation
policy and ``docs/authorization.md`` / ``GET /api/roles`` are generated from it.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from enum import StrEnum

from unionflow.core.roles import GLOBAL_ROLES, Role

R = Role


class Permission(StrEnum):
    # Organisations, members, memberships
    ORGANISATION_MODIFIER = "organisation.modifier"
    MEMBRE_GERER = "membre.gerer"
    ROLE_ATTRIBUER = "role.attribuer"
    # Adhesions
    ADHESION_INSCRIRE = "adhesion.inscrire"
    ADHESION_DECIDER = "adhesion.decider"
    ADHESION_ANNULER = "adhesion.annuler"
    # Dues and money received
    COTISATION_GERER = "cotisation.gerer"
    COTISATION_GENERER = "cotisation.generer"
    PAIEMENT_ENREGISTRER = "paiement.enregistrer"
    PAIEMENT_ANNULER = "paiement.annuler"
    # Money paid out
    VERSEMENT_INITIER = "versement.initier"
    VERSEMENT_CONFIRMER = "versement.confirmer"
    WAVE_COMPTE_GERER = "wave_compte.gerer"
    # Finance, accounting, compliance
    BUDGET_GERER = "budget.gerer"
    FINANCE_DECIDER = "finance.decider"
    COMPTABILITE_ECRIRE = "comptabilite.ecrire"
    LCBFT_TRAITER = "lcbft.traiter"
    # Solidarity
    AIDE_DECIDER = "aide.decider"
    # Events, documents, communication
    EVENEMENT_GERER = "evenement.gerer"
    FEEDBACK_MODERER = "feedback.moderer"
    DOCUMENT_GERER = "document.gerer"
    NOTIFICATION_ENVOYER = "notification.envoyer"
    TICKET_TRAITER = "ticket.traiter"
    SUGGESTION_TRAITER = "suggestion.traiter"
    # Platform (global roles only)
    CONFIGURATION_GERER = "configuration.gerer"
    SAUVEGARDE_RESTAURER = "sauvegarde.restaurer"
    COMPTABILITE_CLOTURER = "comptabilite.cloturer"
    # Integrations (docs/integrations.md)
    CLIENT_API_GERER = "client_api.gerer"
    WEBHOOK_GERER = "webhook.gerer"
    PROPOSITION_AIDE_GERER = "proposition_aide.gerer"
    NOTIFICATION_MODELE_GERER = "notification_modele.gerer"
    # Wave statements: import, match, book Wave's fees
    WAVE_RAPPROCHER = "wave.rapprocher"
    # Money undone: the second person who approves a cancellation, refund or reversal
    ANNULATION_APPROUVER = "annulation.approuver"
    # A manual entry or opening balances touching money, approved by a second person (saisies/, tresoreries/)
    ECRITURE_APPROUVER = "ecriture.approuver"
    # the treasury cancels dues (one, a selection, a generated batch) with a reason.
    COTISATION_ANNULER = "cotisation.annuler"
    # the treasury applies a member's credit (avoir) to his oldest dues.
    AVOIR_IMPUTER = "avoir.imputer"
    # an organisation's own value of the settings that may differ per organisation.
    CONFIGURATION_ORGANISATION_GERER = "configuration_organisation.gerer"
    # declare the treasuries, move money between them, enter the opening balances.
    TRESORERIE_GERER = "tresorerie.gerer"
    # reset a member's USSD PIN after three wrong ones locked it.
    USSD_PIN_REINITIALISER = "ussd_pin.reinitialiser"
    # the organisation's accounting referential (SYCEBNL normal or minimal, PCMS): a governance act.
    REFERENTIEL_CHOISIR = "referentiel_comptable.choisir"
    # record or withdraw a member's consent on his behalf (a signed paper form, Loi 2008-12); the member does it himself
    CONSENTEMENT_RECUEILLIR = "consentement.recueillir"
    # Loi 2008-12: the register's keepers ask for the erasure of a member's identity for him (the member asks for
    # himself without a permission: approbations' ``par_le_sujet``), a second person of the bureau decides it.
    DONNEES_EFFACEMENT_DEMANDER = "donnees.effacement.demander"
    DONNEES_EFFACEMENT_DECIDER = "donnees.effacement.decider"
    # Loi 2008-12 (opposition): the register's keepers ask, for a member, that he be excluded from a processing of the
    # register open to opposition (the member asks for himself without a permission); a second person decides it.
    DONNEES_OPPOSITION_DEMANDER = "donnees.opposition.demander"
    DONNEES_OPPOSITION_DECIDER = "donnees.opposition.decider"
    # ... and export a member's whole file for him (right of access asked through the bureau).
    DONNEES_EXPORTER = "donnees.exporter"
    # Loi 2008-12 art. 18: record the CDP's récépissé (number, dates) of the organisation's declaration of a processing.
    DONNEES_RECEPISSE_ENREGISTRER = "donnees.recepisse.enregistrer"
    # the register of volunteer time (a contribution in kind shown in the SYCEBNL notes): record, cancel a line.
    BENEVOLAT_ENREGISTRER = "benevolat.enregistrer"


P = Permission
_BUREAU = (R.ADMIN_ORGANISATION, R.PRESIDENT, R.SECRETAIRE, R.TRESORIER)

# Permission → roles that hold it. SUPER_ADMIN and ADMIN are listed where they hold a permission, explicitly:
# the table is the policy, nothing is implied. COMMISSAIRE_AUX_COMPTES (extension, the external auditor) holds
# none: he reads (role sets and visibility) and changes nothing.
GRANTS: Mapping[Permission, frozenset[Role]] = {
    P.ORGANISATION_MODIFIER: frozenset({R.SUPER_ADMIN, R.ADMIN, R.ADMIN_ORGANISATION, R.PRESIDENT}),
    P.MEMBRE_GERER: frozenset({R.SUPER_ADMIN, R.ADMIN, R.ADMIN_ORGANISATION, R.SECRETAIRE}),
    P.ROLE_ATTRIBUER: frozenset({R.SUPER_ADMIN, R.ADMIN, R.ADMIN_ORGANISATION}),
    P.ADHESION_INSCRIRE: frozenset({R.SUPER_ADMIN, R.ADMIN, R.ADMIN_ORGANISATION, R.SECRETAIRE}),
    P.ADHESION_DECIDER: frozenset({R.SUPER_ADMIN, R.ADMIN, R.ADMIN_ORGANISATION, R.PRESIDENT, R.SECRETAIRE}),
    P.ADHESION_ANNULER: frozenset({R.SUPER_ADMIN, R.ADMIN, R.ADMIN_ORGANISATION, R.SECRETAIRE}),
    P.COTISATION_GERER: frozenset({R.SUPER_ADMIN, R.ADMIN, R.ADMIN_ORGANISATION, R.TRESORIER}),
    P.COTISATION_GENERER: frozenset({R.SUPER_ADMIN, R.ADMIN, R.ADMIN_ORGANISATION, R.TRESORIER}),
    P.PAIEMENT_ENREGISTRER: frozenset({R.SUPER_ADMIN, R.ADMIN, R.ADMIN_ORGANISATION, R.TRESORIER}),
    P.PAIEMENT_ANNULER: frozenset({R.SUPER_ADMIN, R.ADMIN, R.ADMIN_ORGANISATION, R.TRESORIER}),
    P.VERSEMENT_INITIER: frozenset({R.SUPER_ADMIN, R.ADMIN, R.ADMIN_ORGANISATION, R.TRESORIER}),
    P.VERSEMENT_CONFIRMER: frozenset({R.SUPER_ADMIN, R.ADMIN, R.ADMIN_ORGANISATION, R.TRESORIER, R.PRESIDENT}),
    P.WAVE_COMPTE_GERER: frozenset({R.SUPER_ADMIN, R.ADMIN, R.ADMIN_ORGANISATION, R.TRESORIER}),
    P.BUDGET_GERER: frozenset({R.SUPER_ADMIN, R.ADMIN, R.ADMIN_ORGANISATION, R.TRESORIER}),
    P.FINANCE_DECIDER: frozenset({R.ADMIN_ORGANISATION, R.PRESIDENT}),
    P.COMPTABILITE_ECRIRE: frozenset({R.SUPER_ADMIN, R.ADMIN, R.ADMIN_ORGANISATION, R.TRESORIER}),
    P.LCBFT_TRAITER: frozenset({R.SUPER_ADMIN, R.ADMIN_ORGANISATION}),
    # The president decides aid: in a mutual the bureau's head grants solidarity, not only the admin.
    P.AIDE_DECIDER: frozenset({R.SUPER_ADMIN, R.ADMIN, R.ADMIN_ORGANISATION, R.PRESIDENT}),
    P.EVENEMENT_GERER: frozenset({R.SUPER_ADMIN, R.ADMIN, R.ADMIN_ORGANISATION, R.PRESIDENT, R.SECRETAIRE,
                                  R.ORGANISATEUR_EVENEMENT}),
    P.FEEDBACK_MODERER: frozenset({R.SUPER_ADMIN, R.ADMIN, R.ADMIN_ORGANISATION, R.PRESIDENT, R.SECRETAIRE,
                                   R.ORGANISATEUR_EVENEMENT, R.MODERATEUR}),
    P.DOCUMENT_GERER: frozenset({R.SUPER_ADMIN, R.ADMIN, *_BUREAU}),
    P.NOTIFICATION_ENVOYER: frozenset({R.SUPER_ADMIN, R.ADMIN, *_BUREAU, R.ORGANISATEUR_EVENEMENT}),
    P.TICKET_TRAITER: frozenset({R.SUPER_ADMIN, R.ADMIN, *_BUREAU, R.MODERATEUR}),
    P.SUGGESTION_TRAITER: frozenset({R.SUPER_ADMIN, R.ADMIN, *_BUREAU, R.MODERATEUR}),
    P.CONFIGURATION_GERER: frozenset({R.SUPER_ADMIN, R.ADMIN}),
    P.SAUVEGARDE_RESTAURER: frozenset({R.SUPER_ADMIN, R.ADMIN}),
    P.COMPTABILITE_CLOTURER: frozenset({R.SUPER_ADMIN, R.ADMIN, R.ADMIN_ORGANISATION, R.TRESORIER}),
    P.CLIENT_API_GERER: frozenset({R.SUPER_ADMIN, R.ADMIN}),
    P.WEBHOOK_GERER: frozenset({R.SUPER_ADMIN, R.ADMIN, R.ADMIN_ORGANISATION}),
    P.PROPOSITION_AIDE_GERER: frozenset({R.SUPER_ADMIN, R.ADMIN, *_BUREAU}),
    P.NOTIFICATION_MODELE_GERER: frozenset({R.SUPER_ADMIN, R.ADMIN, R.ADMIN_ORGANISATION}),
    P.WAVE_RAPPROCHER: frozenset({R.SUPER_ADMIN, R.ADMIN, R.ADMIN_ORGANISATION, R.TRESORIER}),
    # Asking to undo money is paiement.annuler / versement.initier / comptabilite.ecrire; approving it takes a
    # second person of the bureau who handles money or heads it (never the requester nor who recorded it).
    P.ANNULATION_APPROUVER: frozenset({R.SUPER_ADMIN, R.ADMIN, R.ADMIN_ORGANISATION, R.PRESIDENT, R.TRESORIER}),
    # A manual entry moving money is approved by a second person of the bureau who handles money or heads it:
    # in a bureau of one treasurer and a president, the president (never the requester).
    P.ECRITURE_APPROUVER: frozenset({R.SUPER_ADMIN, R.ADMIN, R.ADMIN_ORGANISATION, R.PRESIDENT, R.TRESORIER}),
    P.COTISATION_ANNULER: frozenset({R.SUPER_ADMIN, R.ADMIN, R.ADMIN_ORGANISATION, R.TRESORIER}),
    P.AVOIR_IMPUTER: frozenset({R.SUPER_ADMIN, R.ADMIN, R.ADMIN_ORGANISATION, R.TRESORIER}),
    P.CONFIGURATION_ORGANISATION_GERER: frozenset({R.SUPER_ADMIN, R.ADMIN, R.ADMIN_ORGANISATION, R.TRESORIER}),
    P.TRESORERIE_GERER: frozenset({R.SUPER_ADMIN, R.ADMIN, R.ADMIN_ORGANISATION, R.TRESORIER}),
    P.DONNEES_EFFACEMENT_DEMANDER: frozenset({R.SUPER_ADMIN, R.ADMIN, R.ADMIN_ORGANISATION, R.SECRETAIRE}),
    # The head of the bureau, its administrator or the organisation's data-protection officer erases a person's
    # identity, never the requester.
    P.DONNEES_EFFACEMENT_DECIDER: frozenset({R.ADMIN_ORGANISATION, R.PRESIDENT, R.DELEGUE_PROTECTION_DONNEES}),
    P.DONNEES_OPPOSITION_DEMANDER: frozenset({R.SUPER_ADMIN, R.ADMIN, R.ADMIN_ORGANISATION, R.SECRETAIRE}),
    # An opposition is decided like an erasure: the bureau's head, its administrator or the data-protection officer.
    P.DONNEES_OPPOSITION_DECIDER: frozenset({R.ADMIN_ORGANISATION, R.PRESIDENT, R.DELEGUE_PROTECTION_DONNEES}),
    P.DONNEES_EXPORTER: frozenset({R.SUPER_ADMIN, R.ADMIN_ORGANISATION, R.PRESIDENT}),
    # Who files the CDP declaration for the organisation records its récépissé: its administrator or its
    # data-protection officer (and the union's administrators).
    P.DONNEES_RECEPISSE_ENREGISTRER: frozenset({R.SUPER_ADMIN, R.ADMIN, R.ADMIN_ORGANISATION,
                                                R.DELEGUE_PROTECTION_DONNEES}),
    P.USSD_PIN_REINITIALISER: frozenset({R.SUPER_ADMIN, R.ADMIN, R.ADMIN_ORGANISATION, R.TRESORIER}),
    # Which books the organisation keeps is the bureau's head's decision, not the treasurer's who keeps them.
    P.REFERENTIEL_CHOISIR: frozenset({R.SUPER_ADMIN, R.ADMIN, R.ADMIN_ORGANISATION, R.PRESIDENT}),
    # The secretariat keeps the register: it records the consent a member signed on paper (and its withdrawal).
    P.CONSENTEMENT_RECUEILLIR: frozenset({R.SUPER_ADMIN, R.ADMIN, R.ADMIN_ORGANISATION, R.SECRETAIRE}),
    P.BENEVOLAT_ENREGISTRER: frozenset({R.SUPER_ADMIN, R.ADMIN, *_BUREAU}),
}


# Realm roles that hold a permission in every organisation, not only where the caller is a member: the union's
# moderators (realm MODERATEUR, as on RS-FEEDBACK-MODERATION) moderate every event's feedback.
UNION_WIDE: Mapping[Permission, frozenset[Role]] = {
    P.FEEDBACK_MODERER: frozenset({R.MODERATEUR}),
}


def granted(permission: Permission, organisation_id: uuid.UUID | None, *, realm_roles: frozenset[str],
            memberships: Mapping[uuid.UUID, frozenset[str]], active_organisation_id: uuid.UUID | None,
            active_role: str | None) -> bool:
    """Whether the caller holds ``permission`` for a record of ``organisation_id``."""
    roles = roles_for(organisation_id, realm_roles=realm_roles, memberships=memberships,
                      active_organisation_id=active_organisation_id, active_role=active_role)
    union_wide = realm_roles & UNION_WIDE.get(permission, frozenset())
    if active_role is not None:
        union_wide &= {active_role}
    return not GRANTS[permission].isdisjoint(roles | union_wide)


def permissions_of(roles: frozenset[str]) -> frozenset[Permission]:
    return frozenset(p for p, granted in GRANTS.items() if not granted.isdisjoint(roles))


def roles_for(organisation_id: uuid.UUID | None, *, realm_roles: frozenset[str],
              memberships: Mapping[uuid.UUID, frozenset[str]], active_organisation_id: uuid.UUID | None,
              active_role: str | None) -> frozenset[str]:
    """The roles with which the caller acts on a record of ``organisation_id`` (None: platform records)."""
    held: set[str] = set(realm_roles & GLOBAL_ROLES)
    in_scope = active_organisation_id is None or organisation_id == active_organisation_id
    if organisation_id is not None and in_scope and organisation_id in memberships:
        # Without an active organisation (several memberships) a membership gives only the personal role, as
        # for the route role sets (core/auth.py): a treasurer of A and member of B must say he acts for A.
        held |= memberships[organisation_id] if active_organisation_id is not None else {R.MEMBRE.value}
        held |= realm_roles - GLOBAL_ROLES
    if active_role is not None:
        held &= {active_role}
    return frozenset(held)


def role_permissions() -> dict[Role, list[Permission]]:
    """Per role, the permissions it grants (role catalogue, docs)."""
    return {role: sorted((p for p, granted in GRANTS.items() if role in granted), key=list(Permission).index)
            for role in Role}


def markdown_table() -> str:
    """The permission table as it appears in docs/authorization.md (tests/core/test_permissions.py keeps the doc
    equal to it; regenerate with ``python -m unionflow.core.permissions``)."""
    roles = [r for r in Role if r is not R.USER]
    lines = ["| Permission | " + " | ".join(r.value for r in roles) + " |",
             "|---|" + "---|" * len(roles)]
    for permission, granted_to in GRANTS.items():
        cells = ["U" if r in UNION_WIDE.get(permission, ()) else ("x" if r in granted_to else "") for r in roles]
        lines.append(f"| `{permission.value}` | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(markdown_table(), end="")
