"""Architecture checks run by `make layers` (part of `make test`), beside lint-imports and vulture.

1. Services and workflows never build SQL: outside the declared exceptions (docs/architecture.md, "Layers"), no
   module of src/unionflow imports a statement builder from SQLAlchemy (select, insert, update, delete, text,
   func, ...) nor calls ``execute`` / ``scalar(s)`` / ``stream`` on a session or a connection. Queries live in
   the owning area's repository (``repository.py`` or ``<sujet>_repository.py``).
2. Every top-level package of src/unionflow is named in a layer of the import-linter contract (pyproject.toml),
   so that a new area cannot escape the layers unnoticed.
3. Every class named ``*Repository`` derives, directly or through another repository of the package, from
   ``core.repository.ScopedRepository`` or ``SystemRepository``: a reader sees whether its rows are scoped.
4. One door per table: every model of src/unionflow/models has one owning area (``PROPRIETAIRES``), and a module
   that may hold SQL (repositories, ``lectures.py``) imports only its own area's models, apart from the reads
   listed with their reason in ``LECTURES_CROISEES`` (the one list of exceptions; docs/architecture.md).
5. Money in one package: the money tables (``TABLES_ARGENT``: payments, their allocations, member credit,
   payouts; undo requests are a kind of the four-eyes requests) are queried only under paiements/; another
   area's repository or ``lectures.py`` that imports one of their models fails, with no exception
   (``LECTURES_CROISEES`` does not admit them). An area above paiements calls its repositories; an area below
   declares the read as a port (core/ports.py) that paiements answers, plugged by registres.py.
6. One idempotency mechanism, in core (core/idempotence.py): outside core, models and migrations no module imports
   its internals (``Idempotence``, ``fingerprint``) or the key table's model (``CleIdempotence``), names the table
   (``cle_idempotence``) in a string, or defines a function or class named after idempotency. An operation takes
   an ``IdempotentRequest`` (from the API request or ``IdempotentRequest.for_form``) and calls its ``answer``.

5. One request/decision mechanism: no model outside ``approbations`` has the columns of a four-eyes request (a
   status, a requester and a decider: ``statut`` + ``demande_par``/``demandeur`` + ``decide_par``/``decideur``/
   ``approbateur``…), apart from the owners listed in ``DEMANDES_PERMISES`` with their reason. A new kind is a
   policy registered with unionflow/approbations, never a second table.

Exit status 0 when all hold; otherwise each violation is printed as ``path:line: reason`` and the status is 1.
"""

from __future__ import annotations

import ast
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

RACINE = Path(__file__).resolve().parent.parent
PAQUET = RACINE / "src" / "unionflow"

# Names that build SQL. Types (Select, ColumnElement, ...) stay allowed: a service may pass a repository's
# statement along, it never builds one.
CONSTRUCTEURS = frozenset({
    "select", "insert", "update", "delete", "text", "func", "literal", "literal_column", "case", "and_", "or_",
    "not_", "exists", "union", "union_all", "bindparam", "column", "table", "tuple_", "null", "true", "false",
    "cast", "distinct", "desc", "asc", "over", "lambda_stmt", "values", "outerjoin", "join", "any_", "all_",
})
# Methods that send a statement, on a receiver whose name says it is a session or a connection.
EXECUTIONS = frozenset({"execute", "scalar", "scalars", "stream", "stream_scalars", "exec_driver_sql"})
RECEPTEURS = ("session", "conn")
# A row read by primary key is a query too (``session.get(Membre, id)`` skips the owner's door and its scope); only
# on a receiver named exactly ``session``, so that a dict such as ``par_session.get(...)`` is not taken for one.
LECTURES_PAR_CLE = frozenset({"get", "get_one"})

# Declared exceptions, each with its reason in docs/architecture.md ("Layers"): paths relative to src/unionflow.
EXCEPTIONS_DOSSIERS = ("core/", "migrations/", "models/")
EXCEPTIONS_NOMS = ("repository.py", "lectures.py")
EXCEPTIONS_FICHIERS = frozenset({
    "export/formats.py",  # streams, in batches, the statement the export's repository built
    "backups/engine.py",  # PRAGMA integrity_check on the backup file through sqlite3, not the application's tables
    "status/router.py",  # the SELECT 1 probe of GET /api/status on an autocommit connection
})


def _exempte(relatif: str) -> bool:
    nom = relatif.rsplit("/", 1)[-1]
    return (relatif.startswith(EXCEPTIONS_DOSSIERS) or nom in EXCEPTIONS_NOMS or nom.endswith("_repository.py")
            or relatif in EXCEPTIONS_FICHIERS)


def _recepteur(node: ast.expr) -> str:
    """The last name of ``a.b.session`` / ``conn`` / ``self.session``, lower case."""
    if isinstance(node, ast.Name):
        return node.id.lower()
    if isinstance(node, ast.Attribute):
        return node.attr.lower()
    return ""


def violations_sql(source: str) -> Iterator[tuple[int, str]]:
    """(line, reason) of every SQL construction or execution in one module's source."""
    arbre = ast.parse(source)
    alias_sqlalchemy: set[str] = set()
    for node in ast.walk(arbre):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "sqlalchemy":
            for nom in node.names:
                if nom.name in CONSTRUCTEURS:
                    yield node.lineno, f"importe {nom.name} de {node.module}"
        elif isinstance(node, ast.Import):
            for nom in node.names:
                if nom.name.split(".")[0] == "sqlalchemy":
                    alias_sqlalchemy.add(nom.asname or nom.name.split(".")[0])
        elif isinstance(node, ast.Attribute) and node.attr in CONSTRUCTEURS \
                and isinstance(node.value, ast.Name) and node.value.id in alias_sqlalchemy:
            yield node.lineno, f"construit du SQL ({node.value.id}.{node.attr})"
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in EXECUTIONS:
            recepteur = _recepteur(node.func.value)
            if any(r in recepteur for r in RECEPTEURS):
                yield node.lineno, f"exécute une requête ({recepteur}.{node.func.attr})"
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in LECTURES_PAR_CLE and _recepteur(node.func.value) == "session":
            yield node.lineno, f"lit une ligne par sa clé (session.{node.func.attr})"


def verifier_sql() -> list[str]:
    erreurs = []
    for chemin in sorted(PAQUET.rglob("*.py")):
        relatif = chemin.relative_to(PAQUET).as_posix()
        if _exempte(relatif):
            continue
        trouvees = list(violations_sql(chemin.read_text(encoding="utf-8")))
        erreurs += [f"src/unionflow/{relatif}:{ligne}: {raison} hors d'un repository" for ligne, raison in trouvees]
    return erreurs


def verifier_couches() -> list[str]:
    config = tomllib.loads((RACINE / "pyproject.toml").read_text(encoding="utf-8"))
    contrats = config["tool"]["importlinter"]["contracts"]
    couches = next(c for c in contrats if c["type"] == "layers")["layers"]
    nommes = {nom.strip() for couche in couches for nom in couche.replace("|", ":").split(":")}
    presents = {p.stem for p in PAQUET.iterdir()
                if (p.is_dir() and (p / "__init__.py").exists()) or (p.suffix == ".py" and p.stem != "__init__")}
    return [f"src/unionflow/{nom}: absent des couches de pyproject.toml ([tool.importlinter])"
            for nom in sorted(presents - nommes)]


BASES_REPOSITORY = frozenset({"ScopedRepository", "SystemRepository"})


def _nom_base(node: ast.expr) -> str:
    """``ScopedRepository`` of ``ScopedRepository[Model]``, ``repository.SystemRepository``, or a plain name."""
    if isinstance(node, ast.Subscript):
        node = node.value
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""


def classes(source: str) -> Iterator[tuple[int, str, list[str]]]:
    """(line, name, base names) of every class of a module (bases are followed through any class)."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ClassDef):
            yield node.lineno, node.name, [_nom_base(b) for b in node.bases]


def violations_bases(trouvees: list[tuple[str, str, list[str]]]) -> list[str]:
    """The classes named ``*Repository`` among ``trouvees`` (where, name, bases) that reach neither base through
    their parents (a parent named like a class of the package is followed through every class of that name)."""
    bases_de: dict[str, list[list[str]]] = {}
    for _, nom, bases in trouvees:
        bases_de.setdefault(nom, []).append(bases)

    def derive(nom: str, vus: frozenset[str]) -> bool:
        if nom in BASES_REPOSITORY:
            return True
        if nom in vus:
            return False
        return any(derive(base, vus | {nom}) for bases in bases_de.get(nom, []) for base in bases)

    return [f"{ou}: {nom} ne dérive ni de ScopedRepository ni de SystemRepository (core/repository.py)"
            for ou, nom, bases in trouvees
            if nom.endswith("Repository") and not any(derive(base, frozenset({nom})) for base in bases)]


def verifier_repositories() -> list[str]:
    trouvees = []
    for chemin in sorted(PAQUET.rglob("*.py")):
        relatif = chemin.relative_to(PAQUET).as_posix()
        if relatif == "core/repository.py":
            continue  # the bases themselves and their private parent
        trouvees += [(f"src/unionflow/{relatif}:{ligne}", nom, bases)
                     for ligne, nom, bases in classes(chemin.read_text(encoding="utf-8"))]
    return violations_bases(trouvees)


# Owning area of every model (table): its repository is the table's one door.
PROPRIETAIRES = {modele: zone for zone, modeles in {
    "adhesions": ("Adhesion",),
    "approbations": ("DemandeApprobation", "DecisionDemande"),
    "audit": ("AuditLog",),
    "auth": ("LoginThrottle", "SigningKey", "RefreshToken", "UtilisateurLocal", "JetonReinitialisation"),
    "clients_api": ("ClientApi",),
    "clotures": ("ClotureMensuelle",),
    "comptabilite": ("CompteComptable", "JournalComptable", "EcritureComptable", "LigneEcriture", "ExerciceComptable",
                     "VerrouComptable", "CompteProduit", "CorrespondanceSycebnl", "SoldeCompteMois",
                     "SoldeCompteMoisDelta"),
    "configuration": ("ConfigurationEntry", "ConfigurationOrganisation", "ReferentielComptable"),
    "core": ("ResultatCache", "CleIdempotence", "Maintenance", "Compteur"),
    "cotisations": ("Cotisation", "CotisationMembreSynthese", "CotisationSynthese", "CotisationSyntheseDelta",
                    "RappelCotisation"),
    "demandes_aide": ("DemandeAide",),
    "dons": ("LigneRegistreDon", "FondsDedie", "MouvementFondsDedie", "ContributionBenevole"),
    "documents": ("Document", "PieceJointe", "TelechargementDocument"),
    "donnees_personnelles": ("Consentement", "NoticeInformation", "AccesDossier", "OppositionTraitement",
                             "RecepisseTraitement"),
    "evenements": ("Evenement", "InscriptionEvenement", "FeedbackEvenement", "NotificationEvenement"),
    "favoris": ("Favori",),
    "feedback": ("Feedback",),
    "finance": ("Budget", "LigneBudget"),
    "lcbft": ("AlerteLcbFt", "ParametresLcbFt"),
    "membres": ("Membre", "MembreOrganisation"),
    "messagerie": ("Conversation", "ConversationParticipant", "MessageConversation"),
    "monitoring": ("AlerteSysteme", "AlerteConfig", "JournalSysteme"),
    "notifications": ("Notification", "ModeleNotification", "OppositionSms"),
    "organisations": ("Organisation",),
    "paiements": ("Paiement", "PaiementAllocation", "MouvementAvoir", "Versement"),
    "scheduler": ("PlanificationJob", "ExecutionJob"),
    "preferences": ("PreferenceMembre",),
    "propositions_aide": ("PropositionAide",),
    "backups": ("Sauvegarde", "SauvegardeConfig"),
    "suggestions": ("Suggestion", "SuggestionVote"),
    "tasks": ("Tache",),
    "tickets": ("Ticket", "TicketMessage"),
    "tresoreries": ("Tresorerie",),
    "types_reference": ("TypeReference",),
    "sms": ("SmsEntrant",),
    "ussd": ("PinUssd", "CodePinSms"),
    "wave": ("CompteWave", "WaveCheckout", "WaveEvenement", "TransactionWave", "ReleveWave", "LigneReleveWave",
             "RapprochementWave"),
    "webhooks": ("AbonnementWebhook", "LivraisonWebhook"),
}.items() for modele in modeles}

# Money tables: only paiements/ queries them; the areas above call its repositories, those below a port it answers
# (core/ports.py).
TABLES_ARGENT = frozenset({"Paiement", "PaiementAllocation", "MouvementAvoir", "Versement"})

_AFFICHAGE = "joins a parent row's name or fields to the owner's read, in the same statement"
_PORTEE = "the area's visibility rule is written on another area's rows (memberships, participants)"
_RAPPORT = "read-only reporting: aggregates over the caller's organisations, no row written"
_PAR_ID = "a parent row looked up by id (organisation, member): to move to the owner's repository"
# Reads of other areas' tables that remain, by module (path under src/unionflow) → (models, reason). A new one
# fails the check until it moves to the owner's repository or is listed here with its reason.
LECTURES_CROISEES: dict[str, tuple[frozenset[str], str]] = {
    "adhesions/repository.py": (frozenset({"Organisation"}), f"{_AFFICHAGE} (adhesion + its organisation)"),
    "analytics/repository.py": (frozenset({"Adhesion", "Cotisation", "Evenement", "FeedbackEvenement",
                                           "InscriptionEvenement", "MembreOrganisation", "Organisation"}),
                                _RAPPORT),
    "comptabilite/repository.py": (frozenset({"Organisation", "Tresorerie"}),
                                   f"{_PORTEE} (organisations whose books one reads); the payment path reads the "
                                   "treasuries (cached, core/reference.py) to debit the right class-5 account: "
                                   "tresoreries posts through comptabilite, importing it back would be a cycle"),
    "compte/repository.py": (frozenset({"Adhesion", "Cotisation", "Membre", "MembreOrganisation", "Organisation"}),
                             f"{_RAPPORT} (the member's account and dashboards)"),
    "documents/repository.py": (frozenset({"ConversationParticipant", "MessageConversation"}),
                                f"{_PORTEE} (a voice note is seen by the conversation's participants)"),
    "paiements/repository.py": (frozenset({"Adhesion", "Cotisation", "Membre", "Organisation"}),
                                   "payment path: dues and adhesions locked with the payment in one lock order, the "
                                   "payer read for manual entry and receipts (round trips counted by tests)"),
    "configuration/repository.py": (frozenset({"Organisation"}),
                                    "configuration sits below organisations (which read devise.defaut): the "
                                    "existence of the organisation a setting is given for"),
    "paiements/avoirs/repository.py": (frozenset({"Cotisation"}),
                                         "payment path: a credit application locks the dues it pays in the payment's "
                                         "lock order (payment, then dues), like lock_cibles"),
    "donnees_personnelles/repository.py": (frozenset({"MembreOrganisation"}),
                                           f"{_PORTEE} (the data-protection officer reads the consents and the "
                                           "access log of his organisations' members)"),
    "evenements/repository.py": (frozenset({"Membre"}), f"{_AFFICHAGE} (registrants with their names, in name order)"),
    "export/repository.py": (frozenset({"Adhesion", "AuditLog", "CompteComptable", "Cotisation", "EcritureComptable",
                                        "JournalComptable", "LigneEcriture", "Membre", "MembreOrganisation",
                                        "Organisation"}),
                             f"{_RAPPORT}: export statements streamed in batches, each scoped by its owner's rule"),
    "federation/repository.py": (frozenset({"CompteComptable", "EcritureComptable", "LigneEcriture"}),
                                 f"{_RAPPORT} (the federation's consolidation sums the ledger lines it eliminates)"),
    "finance/approbations/repository.py": (frozenset({"DemandeAide", "Organisation"}),
                                           "paiements (payouts) and demandes_aide call finance's approvals: finance "
                                           "importing them back would be a cycle between areas; " + _PORTEE),
    "finance/budgets/repository.py": (frozenset({"CompteComptable", "EcritureComptable", "LigneEcriture",
                                                 "Organisation"}),
                                      f"{_RAPPORT} (a budget's execution sums the ledger lines); {_PORTEE}"),
    "finance/workflow/repository.py": (frozenset({"AuditLog", "DecisionDemande", "DemandeApprobation"}),
                                       f"{_RAPPORT} (the finance approvals' statistics and audit trail)"),
    "imports/repository.py": (frozenset({"Membre", "MembreOrganisation", "Organisation"}),
                              "bulk door of the member import: lookups by chunks of keys and batched inserts "
                              "(bench-import measures it)"),
    "lcbft/repository.py": (frozenset({"Organisation"}),
                            _PORTEE + " (the organisations whose thresholds one reads)"),
    "membres/repository.py": (frozenset({"Adhesion", "Organisation", "PreferenceMembre", "UtilisateurLocal"}),
                              "the one member-visibility rule counts adhesions; get_destinataire reads member, "
                              "organisation name and preferences in ONE statement on the payment path (round "
                              "trips counted by tests); " + _PAR_ID),
    "notifications/repository.py": (frozenset({"NotificationEvenement", "RappelCotisation"}),
                                    "the outbox acknowledges its sources (reminder sent, event notice sent); "
                                    "cotisations and evenements emit through notifications, so importing them "
                                    "back would be a cycle between areas"),
    "organisations/lectures.py": (frozenset({"MembreOrganisation"}),
                                  f"{_PORTEE} (session-free read path: the caller's organisations)"),
    "organisations/repository.py": (frozenset({"Document"}), "the logo candidate: a document of the organisation"),
    "paiements/ports_repository.py": (frozenset({"Cotisation", "DemandeAide", "Membre"}),
                                      f"{_AFFICHAGE} (the ledger's lines name the payer and the dues paid: "
                                      "comptabilite/ports.py); lcbft's cumulated aid payouts per member join the "
                                      "aid request that names the member, in the same statement (lcbft/ports.py)"),
    "paiements/rapport_repository.py": (frozenset({"Membre", "Organisation"}),
                                        f"{_AFFICHAGE} (the payments export names the payer and the organisation)"),
    "paiements/recus/repository.py": (frozenset({"Adhesion", "Cotisation", "Document", "Organisation"}),
                                      f"{_AFFICHAGE} (a receipt renders its payment, allocations and logo)"),
    "propositions_aide/repository.py": (frozenset({"DemandeAide"}),
                                        "matching offers to open aid requests in one query"),
    "backups/repository.py": (frozenset({"AlerteConfig", "AuditLog"}),
                                  "a restore keeps the audit trail and the alert settings written since the backup"),
    "tickets/repository.py": (frozenset({"MembreOrganisation"}),
                              f"{_PORTEE} (the caller's roles in the ticket's organisation)"),
    "types_reference/repository.py": (frozenset({"DemandeAide", "Document", "Evenement", "PropositionAide"}),
                                      "a reference type in use (counted on the columns that name it) is not deleted"),
}


def _zone(relatif: str) -> str:
    return relatif.split("/", 1)[0]


def modeles_importes(source: str) -> Iterator[tuple[int, str]]:
    """(line, name) of every name imported from unionflow.models or one of its modules."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[:2] == ["unionflow", "models"]:
            for nom in node.names:
                yield node.lineno, nom.name


def tables_du_paquet() -> set[str]:
    """Names of the model classes (a ``__tablename__`` in their body) of src/unionflow/models."""
    noms = set()
    for chemin in (PAQUET / "models").glob("*.py"):
        for node in ast.walk(ast.parse(chemin.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and any(
                    isinstance(e, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__tablename__"
                                                      for t in e.targets) for e in node.body):
                noms.add(node.name)
    return noms


def violations_portes(relatif: str, source: str) -> list[str]:
    """Other areas' models imported by one module that may hold SQL, minus its listed exceptions
    (``LECTURES_CROISEES``); a money table outside paiements/ always."""
    permis = LECTURES_CROISEES.get(relatif, (frozenset(), ""))[0]
    erreurs = []
    for ligne, nom in modeles_importes(source):
        if nom not in PROPRIETAIRES or PROPRIETAIRES[nom] == _zone(relatif):
            continue
        if nom in TABLES_ARGENT:
            erreurs.append(f"src/unionflow/{relatif}:{ligne}: lit {nom}, table d'argent (seul paiements/ l'interroge: "
                           f"appeler ses repositories, ou, sous paiements, déclarer un port, core/ports.py)")
        elif nom not in TABLES_ARGENT and nom not in permis:
            erreurs.append(f"src/unionflow/{relatif}:{ligne}: lit {nom}, table de {PROPRIETAIRES[nom]} (une porte par "
                           f"table: passer par son repository, ou LECTURES_CROISEES avec la raison)")
    return erreurs


def verifier_portes() -> list[str]:
    tables = tables_du_paquet()
    erreurs = [f"src/unionflow/models: {nom} n'a pas de zone propriétaire (PROPRIETAIRES)"
               for nom in sorted(tables - PROPRIETAIRES.keys())]
    erreurs += [f"tools/verifier_architecture.py: PROPRIETAIRES nomme {nom}, absent des modèles"
                for nom in sorted(PROPRIETAIRES.keys() - tables)]
    for chemin in sorted(PAQUET.rglob("*.py")):
        relatif = chemin.relative_to(PAQUET).as_posix()
        nom = chemin.name
        if relatif.startswith(EXCEPTIONS_DOSSIERS) or not (
                nom in EXCEPTIONS_NOMS or nom.endswith("_repository.py")):
            continue
        erreurs += violations_portes(relatif, chemin.read_text(encoding="utf-8"))
    for relatif, (permis, _) in sorted(LECTURES_CROISEES.items()):
        chemin = PAQUET / relatif
        lus = {n for _, n in modeles_importes(chemin.read_text(encoding="utf-8"))} if chemin.exists() else set()
        erreurs += [f"tools/verifier_architecture.py: LECTURES_CROISEES[{relatif!r}] nomme {nom}, qu'il ne lit plus"
                    for nom in sorted(permis - lus)]
    erreurs += [f"tools/verifier_architecture.py: LECTURES_CROISEES[{relatif!r}] nomme {nom}, table d'argent: "
                f"aucune liste n'admet ces lectures"
                for relatif, (permis, _) in sorted(LECTURES_CROISEES.items()) for nom in sorted(permis & TABLES_ARGENT)]
    return erreurs


# What only core/idempotence.py may touch; the dotted modules are where they are defined.
MECANISME_IDEMPOTENCE = frozenset({"Idempotence", "fingerprint", "CleIdempotence"})
TABLE_IDEMPOTENCE = "cle_idempotence"
EXCEPTIONS_IDEMPOTENCE = ("core/", "models/", "migrations/")


def _docstrings(arbre: ast.AST) -> set[int]:
    """The string constants that are docstrings: prose may name the table, only a statement would use it."""
    return {id(node.body[0].value) for node in ast.walk(arbre)
            if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
            and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}


def violations_idempotence(source: str) -> Iterator[tuple[int, str]]:
    arbre = ast.parse(source)
    prose = _docstrings(arbre)
    for node in ast.walk(arbre):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("unionflow"):
            for alias in node.names:
                if alias.name in MECANISME_IDEMPOTENCE:
                    yield node.lineno, f"importe {alias.name}"
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and \
                "idempot" in node.name.lower():
            yield node.lineno, f"définit {node.name}"
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and TABLE_IDEMPOTENCE in node.value \
                and id(node) not in prose:
            yield node.lineno, f"nomme la table {TABLE_IDEMPOTENCE}"


def verifier_idempotence() -> list[str]:
    erreurs = []
    for chemin in sorted(PAQUET.rglob("*.py")):
        relatif = chemin.relative_to(PAQUET).as_posix()
        if relatif.startswith(EXCEPTIONS_IDEMPOTENCE):
            continue
        erreurs += [f"src/unionflow/{relatif}:{ligne}: {quoi} — une seule idempotence, dans core/idempotence.py "
                    f"(IdempotentRequest.for_form pour un formulaire de la console)"
                    for ligne, quoi in violations_idempotence(chemin.read_text(encoding="utf-8"))]
    return erreurs


# The one owner of request/decision tables, and the models that still have their own (with the reason).
MECANISME_QUATRE_YEUX = "approbations"
DEMANDES_PERMISES: dict[str, str] = {}
COLONNE_STATUT = "statut"
COLONNES_DEMANDEUR = ("demande_par", "demandeur")
COLONNES_DECIDEUR = ("decide_par", "decideur", "approbateur", "approuve_par", "valide_par")


def _colonnes(classe: ast.ClassDef) -> set[str]:
    """Names of the mapped attributes declared in a model's body (``nom: Mapped[...] = ...``)."""
    return {e.target.id for e in classe.body if isinstance(e, ast.AnnAssign) and isinstance(e.target, ast.Name)}


def _est_une_demande(colonnes: set[str]) -> bool:
    def a(prefixes: tuple[str, ...]) -> bool:
        return any(c.startswith(prefixes) for c in colonnes)
    return COLONNE_STATUT in colonnes and a(COLONNES_DEMANDEUR) and a(COLONNES_DECIDEUR)


def violations_demandes(relatif: str, source: str) -> list[str]:
    """Models of one module of src/unionflow/models shaped like a four-eyes request outside its mechanism."""
    erreurs = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.ClassDef) or not _est_une_demande(_colonnes(node)):
            continue
        if PROPRIETAIRES.get(node.name) == MECANISME_QUATRE_YEUX or node.name in DEMANDES_PERMISES:
            continue
        erreurs.append(f"src/unionflow/{relatif}:{node.lineno}: {node.name} est une seconde table de demandes à "
                       "quatre yeux (statut, demandeur, décideur): en faire un genre de unionflow/approbations "
                       "(une politique enregistrée), ou DEMANDES_PERMISES avec la raison")
    return erreurs


def verifier_demandes() -> list[str]:
    erreurs = []
    for chemin in sorted((PAQUET / "models").glob("*.py")):
        relatif = chemin.relative_to(PAQUET).as_posix()
        erreurs += violations_demandes(relatif, chemin.read_text(encoding="utf-8"))
    erreurs += [f"tools/verifier_architecture.py: DEMANDES_PERMISES nomme {nom}, absent des modèles"
                for nom in sorted(DEMANDES_PERMISES.keys() - tables_du_paquet())]
    return erreurs


def main() -> int:
    erreurs = (verifier_sql() + verifier_couches() + verifier_repositories() + verifier_portes()
               + verifier_idempotence() + verifier_demandes())
    for erreur in erreurs:
        print(erreur)
    if erreurs:
        print(f"{len(erreurs)} violation(s) des règles d'architecture (docs/architecture.md, « Couches »)")
        return 1
    print("Architecture: pas de SQL hors des repositories, chaque paquet dans une couche, "
          "chaque repository sur une base, une porte par table, l'argent interrogé par paiements seul, "
          "une seule idempotence, un seul mécanisme de demandes à quatre yeux")
    return 0


if __name__ == "__main__":
    sys.exit(main())
