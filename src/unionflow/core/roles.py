"""Role names and the spec's role sets (section 5), plus the sets of areas the spec leaves open.

A route names exactly one role set, through ``authorize(...)`` in its signature; that is the one visible
place where who may call it is decided.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Annotated, Any

from pydantic import WithJsonSchema


class Role(StrEnum):
    SUPER_ADMIN = "SUPER_ADMIN"
    ADMIN = "ADMIN"
    ADMIN_ORGANISATION = "ADMIN_ORGANISATION"
    MEMBRE = "MEMBRE"
    USER = "USER"
    MODERATEUR = "MODERATEUR"
    TRESORIER = "TRESORIER"
    PRESIDENT = "PRESIDENT"
    SECRETAIRE = "SECRETAIRE"
    ORGANISATEUR_EVENEMENT = "ORGANISATEUR_EVENEMENT"
    # Extension (docs/authorization.md): the organisation's external auditor, read-only.
    COMMISSAIRE_AUX_COMPTES = "COMMISSAIRE_AUX_COMPTES"
    # Extension (docs/authorization.md): the organisation's data-protection officer (Loi 2008-12): reads the access
    # log of its members' files and their consents; no staff visibility on the rest.
    DELEGUE_PROTECTION_DONNEES = "DELEGUE_PROTECTION_DONNEES"


R = Role
GLOBAL_ROLES = frozenset({R.SUPER_ADMIN, R.ADMIN})
# Roles that are not in the spec (section 5): documented extensions, added to some role sets (``extension``).
EXTENSION_ROLES = frozenset({R.COMMISSAIRE_AUX_COMPTES, R.DELEGUE_PROTECTION_DONNEES})
# Roles that act for an organisation (they see its records), as opposed to a member's personal role. The
# commissaire aux comptes sees them too (read-only: he holds no permission, core/permissions.py).
ORGANISATION_STAFF_ROLES = frozenset(
    {R.ADMIN_ORGANISATION, R.TRESORIER, R.PRESIDENT, R.SECRETAIRE, R.ORGANISATEUR_EVENEMENT, R.MODERATEUR,
     R.COMMISSAIRE_AUX_COMPTES}
)
# The data-protection officer is given in an organisation but is not staff: he reads what his area shows him (the
# access log, consents: donnees_personnelles/), not the organisation's records.
ORGANISATION_ROLES = ORGANISATION_STAFF_ROLES | {R.MEMBRE, R.DELEGUE_PROTECTION_DONNEES}
# The staff who work on members' requests (tickets, suggestions): not the external auditor.
_BUREAU_DE_TRAITEMENT = ORGANISATION_STAFF_ROLES - {R.COMMISSAIRE_AUX_COMPTES}


@dataclass(frozen=True, slots=True)
class RoleSet:
    name: str
    roles: frozenset[Role]
    # Roles added to a spec set (documented extension); ``roles - extension`` is the spec's set.
    extension: frozenset[Role] = frozenset()

    def allows(self, held: frozenset[str]) -> bool:
        return not self.roles.isdisjoint(held)


def _rs(name: str, *roles: Role) -> RoleSet:
    return RoleSet(name, frozenset(roles))


def _etendu(base: RoleSet, *roles: Role) -> RoleSet:
    """A spec set widened by documented extension roles (its name stays the spec's, ``extension`` says what was
    added; tests/security/test_authorization_matrix.py checks the rest is the spec's)."""
    return RoleSet(base.name, base.roles | frozenset(roles), frozenset(roles) - base.roles)


# Spec section 5, verbatim.
RS_READ = _rs("RS-READ", R.ADMIN, R.ADMIN_ORGANISATION, R.MEMBRE, R.USER)
RS_WRITE = _rs("RS-WRITE", R.ADMIN, R.ADMIN_ORGANISATION, R.MEMBRE)
RS_ADMIN = _rs("RS-ADMIN", R.ADMIN)
RS_SA = _rs("RS-SA", R.SUPER_ADMIN)
RS_APPROVE = _rs("RS-APPROVE", R.SUPER_ADMIN, R.ADMIN, R.ADMIN_ORGANISATION)
RS_AUDIT = _rs("RS-AUDIT", R.ADMIN, R.SUPER_ADMIN, R.ADMIN_ORGANISATION)
RS_LCB = _rs("RS-LCB", R.ADMIN_ORGANISATION, R.SUPER_ADMIN)
# The external auditor reads the LCB-FT alerts he must review (extension: read routes only; treating stays RS-LCB).
RS_LCB_LECTURE = _etendu(RS_LCB, R.COMMISSAIRE_AUX_COMPTES)
RS_CONF = _rs("RS-CONF", R.ADMIN, R.SUPER_ADMIN)
RS_ME = _rs("RS-ME", R.MEMBRE, R.ADMIN, R.ADMIN_ORGANISATION)
RS_MON_READ = _rs("RS-MON-READ", R.SUPER_ADMIN, R.ADMIN, R.MODERATEUR)
RS_MON_WRITE = _rs("RS-MON-WRITE", R.SUPER_ADMIN, R.ADMIN)
RS_AIDE = _rs("RS-AIDE", R.USER, R.MEMBRE, R.ADMIN, R.SUPER_ADMIN, R.ADMIN_ORGANISATION)
RS_EVT_READ = _rs("RS-EVT-READ", R.ADMIN, R.ADMIN_ORGANISATION, R.PRESIDENT, R.SECRETAIRE,
                  R.ORGANISATEUR_EVENEMENT, R.MEMBRE, R.USER)
RS_EVT_READ2 = _rs("RS-EVT-READ2", R.ADMIN, R.ADMIN_ORGANISATION, R.PRESIDENT, R.SECRETAIRE,
                   R.ORGANISATEUR_EVENEMENT, R.MEMBRE)
RS_EVT_WRITE = _rs("RS-EVT-WRITE", R.ADMIN, R.ADMIN_ORGANISATION, R.PRESIDENT, R.SECRETAIRE,
                   R.ORGANISATEUR_EVENEMENT)
# Extension: the journal d'audit is read by the treasurer (entries of his organisation's money, scoped
# in audit/repository.py) and by the commissaire aux comptes (his organisation's entries); writing an entry
# (POST /api/audit) keeps the spec's RS-AUDIT.
RS_AUDIT_LECTURE = _etendu(RS_AUDIT, R.TRESORIER, R.COMMISSAIRE_AUX_COMPTES)
# Rows of the spec that list roles inline rather than by set name.
RS_COTISATION_PAYER = _rs("ADMIN,ADMIN_ORGANISATION,MEMBRE,TRESORIER", R.ADMIN, R.ADMIN_ORGANISATION,
                          R.MEMBRE, R.TRESORIER)
RS_DASHBOARD_MEMBRE = _rs("USER,MEMBRE,ADMIN,ADMIN_ORGANISATION,SUPER_ADMIN", R.USER, R.MEMBRE, R.ADMIN,
                          R.ADMIN_ORGANISATION, R.SUPER_ADMIN)
RS_EVT_COUNT = _rs("ADMIN,ADMIN_ORGANISATION,SUPER_ADMIN", R.ADMIN, R.ADMIN_ORGANISATION, R.SUPER_ADMIN)

# Sets for areas whose roles the spec does not show (see docs/decisions.md).
RS_ANY_AUTHENTICATED = _rs("RS-AUTHENTICATED", *Role)
RS_ORG_ADMIN = _rs("RS-ORG-ADMIN", R.SUPER_ADMIN, R.ADMIN, R.ADMIN_ORGANISATION)
RS_ORG_READ = _rs("RS-ORG-READ", R.SUPER_ADMIN, R.ADMIN, R.ADMIN_ORGANISATION, R.PRESIDENT, R.SECRETAIRE,
                  R.TRESORIER, R.ORGANISATEUR_EVENEMENT, R.MEMBRE, R.USER)
RS_MEMBRE_READ = _rs("RS-MEMBRE-READ", R.SUPER_ADMIN, R.ADMIN, R.ADMIN_ORGANISATION, R.PRESIDENT,
                     R.SECRETAIRE, R.TRESORIER, R.COMMISSAIRE_AUX_COMPTES)
RS_MEMBRE_WRITE = _rs("RS-MEMBRE-WRITE", R.SUPER_ADMIN, R.ADMIN, R.ADMIN_ORGANISATION, R.SECRETAIRE)
RS_TRESORERIE = _rs("RS-TRESORERIE", R.SUPER_ADMIN, R.ADMIN, R.ADMIN_ORGANISATION, R.TRESORIER)
RS_TRESORERIE_READ = _rs("RS-TRESORERIE-READ", R.SUPER_ADMIN, R.ADMIN, R.ADMIN_ORGANISATION, R.TRESORIER,
                         R.PRESIDENT, R.COMMISSAIRE_AUX_COMPTES)
RS_UNION_ADMIN = _rs("RS-UNION-ADMIN", R.SUPER_ADMIN, R.ADMIN)
# The bureau of an organisation (president, secretary, treasurer, its administrator): the register of volunteer
# time, which any of them keeps (extension, docs/decisions.md « Le registre du bénévolat »).
RS_BUREAU = _rs("RS-BUREAU", R.SUPER_ADMIN, R.ADMIN, R.ADMIN_ORGANISATION, R.PRESIDENT, R.SECRETAIRE, R.TRESORIER)
# Confirming a payout someone else prepared: any officer holding versement.confirmer, the president included, so
# that a bureau of one treasurer and a president can pay out (the creator is still refused, by person key).
RS_VERSEMENT_CONFIRMER = _rs("RS-VERSEMENT-CONFIRMER", R.SUPER_ADMIN, R.ADMIN, R.ADMIN_ORGANISATION, R.TRESORIER,
                             R.PRESIDENT)

# Cotisations: batch generation of a period's dues (route not in the spec; see docs/decisions.md).
RS_COTISATION_GENERER = _rs("RS-COTISATION-GENERER", R.ADMIN, R.ADMIN_ORGANISATION, R.TRESORIER)
# Membres, Rôles, Audit (docs/decisions.md, "Membres"): every role that may open a member record; staff see
# their organisations' members, MEMBRE/USER only their own record (scoped in membres/repository.py).
RS_MEMBRE_SELF = _rs("RS-MEMBRE-SELF", R.SUPER_ADMIN, R.ADMIN, R.ADMIN_ORGANISATION, R.PRESIDENT, R.SECRETAIRE,
                     R.TRESORIER, R.MEMBRE, R.USER)
# Paiements, Wave, Versements, Compte Adhérent, dashboards (docs/paiements-wave.md). Visibility inside the
# routes is scoped by the repositories: members see their own payments, staff their organisations'.
RS_PAIEMENT_READ = _rs("RS-PAIEMENT-READ", R.SUPER_ADMIN, R.ADMIN, R.ADMIN_ORGANISATION, R.TRESORIER,
                       R.PRESIDENT, R.MEMBRE, R.USER, R.COMMISSAIRE_AUX_COMPTES)
RS_PAIEMENT_ME = _rs("RS-PAIEMENT-ME", R.MEMBRE, R.USER, R.ADMIN, R.ADMIN_ORGANISATION, R.TRESORIER)
RS_WAVE_CHECKOUT = _rs("RS-WAVE-CHECKOUT", R.MEMBRE, R.USER, R.TRESORIER, R.ADMIN_ORGANISATION, R.ADMIN,
                       R.SUPER_ADMIN)
RS_COMPTE_ADHERENT = _rs("RS-COMPTE-ADHERENT", R.MEMBRE, R.USER, R.ADMIN, R.ADMIN_ORGANISATION)
# Événements: registration, feedback and moderation (roles not shown in the spec; docs/decisions.md).
RS_EVT_INSCRIPTION = _rs("RS-EVT-INSCRIPTION", R.USER, R.MEMBRE, R.ADMIN, R.SUPER_ADMIN, R.ADMIN_ORGANISATION,
                         R.PRESIDENT, R.SECRETAIRE, R.TRESORIER, R.ORGANISATEUR_EVENEMENT, R.MODERATEUR)
RS_EVT_MODERATION = _rs("RS-EVT-MODERATION", R.MODERATEUR, R.ADMIN, R.SUPER_ADMIN, R.ADMIN_ORGANISATION,
                        R.PRESIDENT, R.SECRETAIRE, R.ORGANISATEUR_EVENEMENT)
# Finance - Budgets / Approvals / Workflow, Propositions d'aide, Types de référence (docs/finance.md).
# The bureau reads the organisation's finances; the treasurer (and the organisation's administrator) prepares
# budgets and asks for approvals; the president or the organisation's administrator decides (never the
# requester: four-eyes rule, checked in the services).
RS_FINANCE_READ = _rs("RS-FINANCE-READ", R.SUPER_ADMIN, R.ADMIN, R.ADMIN_ORGANISATION, R.PRESIDENT, R.TRESORIER,
                      R.COMMISSAIRE_AUX_COMPTES)
RS_FINANCE_WRITE = _rs("RS-FINANCE-WRITE", R.SUPER_ADMIN, R.ADMIN, R.ADMIN_ORGANISATION, R.TRESORIER)
RS_FINANCE_DECIDE = _rs("RS-FINANCE-DECIDE", R.ADMIN_ORGANISATION, R.PRESIDENT)
RS_PROPOSITION_AIDE = _rs("RS-PROPOSITION-AIDE", R.USER, R.MEMBRE, R.ADMIN, R.SUPER_ADMIN, R.ADMIN_ORGANISATION,
                          R.PRESIDENT, R.SECRETAIRE, R.TRESORIER)
RS_PROPOSITION_AIDE_GESTION = _rs("RS-PROPOSITION-AIDE-GESTION", R.ADMIN, R.SUPER_ADMIN, R.ADMIN_ORGANISATION,
                                  R.PRESIDENT, R.SECRETAIRE, R.TRESORIER)
RS_TYPES_REFERENCE_WRITE = _rs("RS-TYPES-REFERENCE-WRITE", R.ADMIN, R.SUPER_ADMIN)
# Notifications and Préférences (docs/notifications.md): organisation staff write to their members; every
# authenticated caller reads their own inbox and preferences; templates are managed by administrators.
RS_NOTIFICATION_ENVOI = _rs("RS-NOTIFICATION-ENVOI", R.SUPER_ADMIN, R.ADMIN, R.ADMIN_ORGANISATION, R.PRESIDENT,
                            R.SECRETAIRE, R.TRESORIER, R.ORGANISATEUR_EVENEMENT)
RS_NOTIFICATION_MODELE = _rs("RS-NOTIFICATION-MODELE", R.SUPER_ADMIN, R.ADMIN, R.ADMIN_ORGANISATION)
RS_NOTIFICATION_MES = _rs("RS-NOTIFICATION-MES", *Role)
# Export and Analytics (docs/export-analytics.md): the bureau of an organisation downloads what it keeps.
# Members register (personal data): administrators, secretary, president, and the treasurer who collects their
# dues; money: treasurer and president; the commissaire aux comptes reads every export of his
# organisation;
# adhesions: both sides of the bureau; the audit trail uses RS-AUDIT. Rows are scoped by the area's rules.
RS_EXPORT_MEMBRES = _rs("RS-EXPORT-MEMBRES", R.SUPER_ADMIN, R.ADMIN, R.ADMIN_ORGANISATION, R.SECRETAIRE,
                        R.PRESIDENT, R.TRESORIER, R.COMMISSAIRE_AUX_COMPTES)
RS_EXPORT_TRESORERIE = _rs("RS-EXPORT-TRESORERIE", R.SUPER_ADMIN, R.ADMIN, R.ADMIN_ORGANISATION, R.TRESORIER,
                           R.PRESIDENT, R.COMMISSAIRE_AUX_COMPTES)
RS_EXPORT_ADHESIONS = _rs("RS-EXPORT-ADHESIONS", R.SUPER_ADMIN, R.ADMIN, R.ADMIN_ORGANISATION, R.SECRETAIRE,
                          R.TRESORIER, R.PRESIDENT, R.COMMISSAIRE_AUX_COMPTES)
RS_ANALYTICS = _rs("RS-ANALYTICS", R.SUPER_ADMIN, R.ADMIN, R.ADMIN_ORGANISATION, R.PRESIDENT, R.SECRETAIRE,
                   R.TRESORIER, R.COMMISSAIRE_AUX_COMPTES)
# Tickets, Suggestions, Feedback, Favoris, Messagerie (docs/tickets-suggestions.md): member-facing routes take
# RS_ANY_AUTHENTICATED and scope rows in their repositories; these sets cover the staff-only routes.
RS_TICKET_STAFF = _rs("RS-TICKET-STAFF", R.SUPER_ADMIN, R.ADMIN, *_BUREAU_DE_TRAITEMENT)
RS_FEEDBACK_MODERATION = _rs("RS-FEEDBACK-MODERATION", R.MODERATEUR, R.ADMIN, R.SUPER_ADMIN)
RS_SUGGESTION_STAFF = _rs("RS-SUGGESTION-STAFF", R.SUPER_ADMIN, R.ADMIN, *_BUREAU_DE_TRAITEMENT)
# Integrations (docs/integrations.md): API clients are created by the union's administrators; an
# organisation's administrators manage its webhook subscriptions.
RS_CLIENT_API = _rs("RS-CLIENT-API", R.SUPER_ADMIN, R.ADMIN)
RS_WEBHOOK = _rs("RS-WEBHOOK", R.SUPER_ADMIN, R.ADMIN, R.ADMIN_ORGANISATION)
# Money undone: the second person who approves a cancellation, refund or reversal (annulation.approuver).
RS_ANNULATION_DECIDE = _rs("RS-ANNULATION-DECIDE", R.SUPER_ADMIN, R.ADMIN, R.ADMIN_ORGANISATION, R.PRESIDENT,
                           R.TRESORIER)
# Manual entries and opening balances touching money: the second person who approves them (ecriture.approuver).
# « À approuver » (GET /api/approbations/a-approuver and its console page): what the caller may decide. The
# treasury's readers minus the external auditor: he reads every request and decision (RS_FINANCE_READ,
# RS_TRESORERIE_READ) and decides none, so a list of what he may decide is not his (403, and no menu entry).
RS_A_APPROUVER = _rs("RS-A-APPROUVER", R.SUPER_ADMIN, R.ADMIN, R.ADMIN_ORGANISATION, R.TRESORIER, R.PRESIDENT,
                     R.DELEGUE_PROTECTION_DONNEES)
RS_ECRITURE_DECIDE = _rs("RS-ECRITURE-DECIDE", R.SUPER_ADMIN, R.ADMIN, R.ADMIN_ORGANISATION, R.PRESIDENT,
                         R.TRESORIER)
# Loi 2008-12 (extension): staff who read a member's whole file for him (access right); who decide the erasure of
# his identity or his opposition to a processing (donnees.effacement.decider, donnees.opposition.decider): they and
# the data-protection officer; SUPER_ADMIN reads the file union-wide, decides nothing.
RS_DONNEES_MEMBRE = _rs("RS-DONNEES-MEMBRE", R.SUPER_ADMIN, R.ADMIN_ORGANISATION, R.PRESIDENT)
RS_DONNEES_DECIDE = _rs("RS-DONNEES-DECIDE", R.ADMIN_ORGANISATION, R.PRESIDENT, R.DELEGUE_PROTECTION_DONNEES)

# Personal data (Loi 2008-12, docs/donnees-personnelles.md; extension routes). Consents: the member for himself, the
# secretariat for a member (consentement.recueillir); read too by the bureau's head and the data-protection officer.
RS_CONSENTEMENT = _rs("RS-CONSENTEMENT", R.SUPER_ADMIN, R.ADMIN, R.ADMIN_ORGANISATION, R.SECRETAIRE, R.MEMBRE,
                      R.USER)
RS_CONSENTEMENT_LECTURE = _rs("RS-CONSENTEMENT-LECTURE", R.SUPER_ADMIN, R.ADMIN, R.ADMIN_ORGANISATION,
                              R.SECRETAIRE, R.PRESIDENT, R.DELEGUE_PROTECTION_DONNEES, R.MEMBRE, R.USER)
# The access log of a member's file: the member (his own), the data-protection officer, the union's administrators.
RS_ACCES_DOSSIER = _rs("RS-ACCES-DOSSIER", R.SUPER_ADMIN, R.ADMIN, R.DELEGUE_PROTECTION_DONNEES, R.MEMBRE, R.USER)
RS_ACCES_DOSSIER_ORGANISATION = _rs("RS-ACCES-DOSSIER-ORGANISATION", R.SUPER_ADMIN, R.ADMIN,
                                    R.DELEGUE_PROTECTION_DONNEES)
# The register of processings (the CDP declaration): the organisation's administrator and data-protection officer.
RS_REGISTRE_TRAITEMENTS = _rs("RS-REGISTRE-TRAITEMENTS", R.SUPER_ADMIN, R.ADMIN, R.ADMIN_ORGANISATION,
                              R.DELEGUE_PROTECTION_DONNEES)


# A role given inside an organisation: the OpenAPI lists only the roles an organisation can grant, so clients
# (and schemathesis) never offer USER or the global roles there; the services still refuse them with a reason.
RoleOrganisation = Annotated[Role, WithJsonSchema(
    {"type": "string", "enum": sorted(r.value for r in ORGANISATION_ROLES)})]
# Realm roles an administrator may set: the role names, stated as an enum for clients.
REALM_ROLES_SCHEMA: dict[str, Any] = {"items": {"type": "string", "enum": [r.value for r in Role]}}
