"""tools/verifier_noms.py: what it catches (a class name defined twice, a path of docs/architecture.md that does not
exist, an "issue N" in the sources), and that the tree passes it."""

from __future__ import annotations

import subprocess
import sys

from tests.architecture.test_verifications import RACINE, _outil

noms = _outil("verifier_noms")


def test_a_class_name_defined_twice_fails_unless_the_spec_imposes_it() -> None:
    trouvees = {"Bilan": ["a.py:1", "b.py:2"], "Evenement": ["models/evenement.py:1", "evenements/schemas.py:3"],
                "Seule": ["c.py:1"]}
    erreurs = noms.verifier_classes(trouvees)
    assert len(erreurs) == 1 and "Bilan" in erreurs[0] and "a.py:1" in erreurs[0]


def test_a_path_that_does_not_exist_fails_templates_and_existing_paths_pass() -> None:
    texte = ("## Layout\n\n```\nsrc/unionflow/\n  core/\n    lot.py   the one statement\n    fantome.py  gone\n"
             "  <area>/  template\n```\n\nSee `core/idempotence.py`, `paiements/absent.py` and `<area>/router.py`.\n")
    erreurs = noms.verifier_docs(texte)
    assert sorted(e.split("« ")[1].split(" »")[0] for e in erreurs) == [
        "core/fantome.py", "paiements/absent.py"]


def test_the_tree_passes() -> None:
    result = subprocess.run([sys.executable, str(RACINE / "tools" / "verifier_noms.py")], capture_output=True,
                            text=True, cwd=RACINE)
    assert result.returncode == 0, result.stdout
