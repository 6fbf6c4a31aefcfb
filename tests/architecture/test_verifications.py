"""The architecture checks of `make layers` (tools/): what they catch, and that the tree passes them."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

RACINE = Path(__file__).resolve().parents[2]


def _outil(nom: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(nom, RACINE / "tools" / f"{nom}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


verifier = _outil("verifier_architecture")


def _raisons(source: str) -> list[str]:
    return [raison for _, raison in verifier.violations_sql(source)]


def test_statement_builders_and_executions_are_caught() -> None:
    assert _raisons("from sqlalchemy import select, Select\n") == ["importe select de sqlalchemy"]
    assert _raisons("from sqlalchemy.dialects.postgresql import insert\n") == [
        "importe insert de sqlalchemy.dialects.postgresql"]
    assert _raisons("import sqlalchemy as sa\nx = sa.text('SELECT 1')\n") == ["construit du SQL (sa.text)"]
    assert _raisons("async def f(self, stmt):\n    await self.session.execute(stmt)\n") == [
        "exécute une requête (session.execute)"]
    assert _raisons("async def f(conn, stmt):\n    await conn.scalars(stmt)\n") == [
        "exécute une requête (conn.scalars)"]


def test_types_and_a_dict_named_after_a_session_are_not_sql() -> None:
    source = ("from sqlalchemy import Select\nfrom sqlalchemy.ext.asyncio import AsyncSession\n"
              "async def f(session, stmt: Select):\n    par_session.get('x')\n    repo.execute()\n")
    assert _raisons(source) == []


def test_a_primary_key_load_is_a_query_too() -> None:
    # session.get(Membre, id) would skip the owner's door and its scope (issue 18, one door per table).
    assert _raisons("async def f(self, i):\n    await self.session.get(Membre, i)\n") == [
        "lit une ligne par sa clé (session.get)"]


def test_declared_exceptions() -> None:
    for chemin in ("core/lot.py", "migrations/env.py", "models/base.py", "membres/repository.py",
                   "finance/budgets/budget_repository.py", "organisations/lectures.py", "cotisations/lectures.py"):
        assert verifier._exempte(chemin), chemin
    for chemin in ("membres/service.py", "paiements/encaissement/workflow.py", "cotisations/jobs.py", "cli.py"):
        assert not verifier._exempte(chemin), chemin


def _sans_base(source: str) -> list[str]:
    classes = [("m.py:" + str(ligne), nom, bases) for ligne, nom, bases in verifier.classes(source)]
    return [erreur.split(": ", 1)[1].split(" ", 1)[0] for erreur in verifier.violations_bases(classes)]


def test_every_repository_derives_from_one_of_the_two_bases() -> None:
    source = ("class MesureRepository:\n    pass\n"
              "class A(ScopedRepository[Membre]):\n    pass\n"
              "class B(repository.SystemRepository[X]):\n    pass\n"
              "class CRepository(A):\n    pass\n"
              "class DRepository(Generic[M]):\n    pass\n"
              "class ERepository(DRepository):\n    pass\n"
              "class Helper:\n    pass\n"
              "class _Base(SystemRepository[Y]):\n    pass\n"
              "class FRepository(_Base):\n    pass\n")
    assert _sans_base(source) == ["MesureRepository", "DRepository", "ERepository"]


def test_a_repository_reads_only_its_own_area_tables_or_a_listed_exception() -> None:
    source = ("from unionflow.models import Ticket, Paiement\n"
              "from unionflow.models.membre import MembreOrganisation, StatutAppartenance\n")
    trouvees = verifier.violations_portes("tickets/repository.py", source)
    # Ticket is its own; MembreOrganisation is a listed read of tickets; Paiement is not; an enum is no table.
    assert [e.split(": ", 1)[1].split(",")[0] for e in trouvees] == ["lit Paiement"]
    assert verifier.violations_portes("favoris/repository.py", source) != []
    assert verifier.violations_portes("paiements/repository.py", "from unionflow.models import Paiement\n") == []


def test_a_money_table_is_queried_only_in_paiements(monkeypatch: pytest.MonkeyPatch) -> None:
    source = "from unionflow.models import Paiement, MouvementAvoir\n"
    assert verifier.violations_portes("paiements/avoirs/repository.py", source) == []
    trouvees = verifier.violations_portes("compte/repository.py", source)
    assert [e.split(": ", 1)[1].split(",")[0] for e in trouvees] == ["lit Paiement", "lit MouvementAvoir"]
    assert all("table d'argent" in e for e in trouvees)
    # Listing the read among the other cross-area reads does not admit it: nothing does.
    monkeypatch.setitem(verifier.LECTURES_CROISEES, "compte/repository.py", (frozenset({"Paiement"}), "raison"))
    assert len(verifier.violations_portes("compte/repository.py", source)) == 2
    # The areas below paiements (which they may not import) declare a port instead (core/ports.py).
    for relatif in ("lcbft/repository.py", "comptabilite/pieces/repository.py", "finance/approbations/repository.py"):
        assert verifier.violations_portes(relatif, "from unionflow.models import Paiement, Versement\n") != []
    assert not hasattr(verifier, "LECTURES_ARGENT")


def test_every_table_has_one_owner_and_every_exception_says_why() -> None:
    assert verifier.tables_du_paquet() == set(verifier.PROPRIETAIRES)
    for relatif, (modeles, raison) in verifier.LECTURES_CROISEES.items():
        assert raison and modeles, relatif
        assert all(verifier.PROPRIETAIRES[m] != relatif.split("/")[0] for m in modeles), relatif
        assert not modeles & verifier.TABLES_ARGENT, relatif
    assert {m for m, zone in verifier.PROPRIETAIRES.items() if zone == "paiements"} >= verifier.TABLES_ARGENT


def test_an_idempotency_mechanism_outside_core_is_caught() -> None:
    def raisons(source: str) -> list[str]:
        return [raison for _, raison in verifier.violations_idempotence(source)]

    assert raisons("from unionflow.core.idempotence import Idempotence, fingerprint\n") == [
        "importe Idempotence", "importe fingerprint"]
    assert raisons("from unionflow.models import CleIdempotence\n") == ["importe CleIdempotence"]
    assert raisons("async def _idempotent(session):\n    pass\n") == ["définit _idempotent"]
    assert raisons("Q = 'SELECT corps_reponse FROM cle_idempotence'\n") == ["nomme la table cle_idempotence"]
    # The one mechanism, used as meant: a request built for a form and its answer; prose may name the table.
    assert raisons('"""Keys live in cle_idempotence."""\nfrom unionflow.core.idempotence import IdempotentRequest, '
                   'Reponse\nidem = IdempotentRequest.for_form(None, "POST /api/paiements", "k")\n') == []
    assert verifier.verifier_idempotence() == []


def test_the_tree_passes_every_check() -> None:
    assert verifier.verifier_sql() == []
    assert verifier.verifier_repositories() == []
    assert verifier.verifier_portes() == []
    assert verifier.verifier_couches() == []
    contrats = subprocess.run([str(Path(sys.executable).parent / "lint-imports"), "--no-cache"], cwd=RACINE,
                              capture_output=True, text=True, check=False)
    assert contrats.returncode == 0, contrats.stdout + contrats.stderr
    morts = subprocess.run([sys.executable, str(RACINE / "tools" / "verifier_code_mort.py")], cwd=RACINE,
                           capture_output=True, text=True, check=False)
    assert morts.returncode == 0, morts.stdout


def test_a_second_request_decision_table_is_caught() -> None:
    source = ("class DemandeRemise(IdMixin, Base):\n    __tablename__ = 'demande_remise'\n"
              "    statut: Mapped[str]\n    demande_par_sub: Mapped[str]\n    decideur_sub: Mapped[str | None]\n")
    [erreur] = verifier.violations_demandes("models/remise.py", source)
    assert erreur.startswith("src/unionflow/models/remise.py:1: DemandeRemise est une seconde table de demandes")
    # A status and an author alone (a budget submitted, a ticket) are not a four-eyes request.
    assert verifier.violations_demandes("models/x.py", source.replace("decideur_sub", "motif")) == []
    # The mechanism's own tables are its one home.
    assert verifier.violations_demandes("models/approbation.py", source.replace("DemandeRemise",
                                                                               "DemandeApprobation")) == []
