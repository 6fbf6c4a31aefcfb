"""The console's menu, grouped by task: one declaration of every screen (group → path, label).

Who sees an entry is not declared here: it is the role set the page itself names with ``@page`` (``ROLE_SETS``), so
a menu never offers a page that answers 403 to its reader. A path not (yet) registered is not offered either, so a
screen added later appears once its page exists. Another screen: one line in its group. The federation's page
is not here: only a federation's bureau has one, and its board links to it (a mutual's bureau sees no link).
"""

from __future__ import annotations

from collections.abc import Mapping

from unionflow.core.auth import AuthContext
from unionflow.core.permissions import Permission
from unionflow.core.roles import RoleSet

Groupe = tuple[str, tuple[tuple[str, str], ...]]

NAV: tuple[Groupe, ...] = (
    ("Encaisser", (("/tresorerie", "Trésorerie"), ("/declarations", "Déclarations"),
                   ("/versements", "Versements"), ("/annulations", "Annulations"),
                   ("/tresoreries", "Trésoreries"), ("/wave/releves", "Relevés Wave"))),
    ("Approuver", (("/a-approuver", "À approuver"), ("/aides", "Aides"))),
    ("Membres", (("/membres", "Membres"), ("/nouveau-membre", "Nouveau membre"), ("/import", "Import"),
                 ("/adhesions", "Adhésions"), ("/evenements", "Événements"))),
    ("Comptabilité", (("/comptabilite", "États et verrouillage"), ("/ecritures/nouvelle", "Écriture manuelle"),
                      ("/clotures", "Clôtures"), ("/cotisations/generer", "Génération des cotisations"),
                      ("/exports", "Exports"), ("/avoirs", "Registre des avoirs"),
                      ("/registre-dons", "Registre des dons"), ("/fonds-dedies", "Fonds dédiés"),
                      ("/benevolat", "Bénévolat"),
                      ("/alertes", "Alertes LCB-FT"),
                      ("/journal-audit", "Journal d'audit"))),
    ("Paramètres", (("/mise-en-route", "Mise en route"), ("/utilisateurs", "Comptes utilisateurs"),
                    ("/registre-traitements", "Registre des traitements"), ("/acces-fiches", "Accès aux fiches"))),
    ("Mon compte", (("/moi", "Mon compte"), ("/moi/releve", "Relevé de compte"),
                    ("/moi/notifications", "Notifications"), ("/moi/pin-ussd", "Code PIN USSD"),
                    ("/moi/donnees", "Mes données"),
                    ("/mot-de-passe", "Mot de passe"))),
)
# Screens whose page admits members too (as the API's role set does) but that are work for whoever holds one of
# these permissions: the menu offers them only then (the page itself stays open to the role set).
PERMISSIONS: dict[str, tuple[Permission, ...]] = {"/aides": (Permission.AIDE_DECIDER, Permission.VERSEMENT_INITIER)}
# The member's own pages read his member record: not offered to an account without one (an API-only admin).
PERSONNELLES = ("/moi", "/moi/releve", "/moi/pin-ussd", "/moi/donnees")


def offert(auth: AuthContext, path: str, role_sets: Mapping[tuple[str, str], RoleSet], prefix: str) -> bool:
    set_ = role_sets.get(("GET", prefix + path))
    if set_ is None or not set_.allows(auth.roles) or (path in PERSONNELLES and auth.membre_id is None):
        return False
    needed = PERMISSIONS.get(path)
    return needed is None or any(auth.can(p, auth.active_organisation_id) for p in needed)


def menu(auth: AuthContext, role_sets: Mapping[tuple[str, str], RoleSet],
         prefix: str) -> list[tuple[str, list[tuple[str, str]]]]:
    """The groups the caller has at least one screen in, each with those screens, in the declared order."""
    groupes = [(nom, [(path, label) for path, label in liens if offert(auth, path, role_sets, prefix)])
               for nom, liens in NAV]
    return [(nom, liens) for nom, liens in groupes if liens]
