"""The shell of the public pages a payer or a receipt holder opens in a browser (the payment-code page, the
receipt check): one HTML document, French, self-contained — inline style only, no script, no external resource —
so that it opens on a cheap phone with a poor connection. Each page brings its own style and body."""

from __future__ import annotations

from decimal import Decimal
from html import escape

from unionflow.core.montants import NNBSP, format_montant

# Shared by every public page: the frame, the card and the definition list of figures.
STYLE_COMMUN = """body { margin: 0; font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
       background: #f3f4f6; color: #111827; }
main { max-width: 28rem; margin: 0 auto; padding: 1.5rem 1rem; }
.carte { background: #fff; border-radius: .75rem; box-shadow: 0 1px 3px rgba(0,0,0,.12); }
dl { display: grid; grid-template-columns: auto 1fr; }
dt { color: #4b5563; }
dd { margin: 0; font-weight: 600; overflow-wrap: anywhere; }"""


def document(titre: str, corps: str, *, style: str, classe: str = "") -> str:
    """A whole page: ``style`` adds the page's own rules after the common ones; ``classe`` marks ``<main>``."""
    attribut = f' class="{escape(classe)}"' if classe else ""
    return f"""<!DOCTYPE html>
<html lang="fr">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>{escape(titre)} — UnionFlow</title>
<style>
{STYLE_COMMUN}
{style}
</style>
</head>
<body>
<main{attribut}>
<div class="carte">
{corps}
</div>
</main>
</body>
</html>
"""


def montant_fcfa(montant: Decimal, devise: str) -> str:
    """40000.00 XOF → « 40 000 FCFA », written as the console writes it (core/montants.py), escaped for HTML."""
    return escape(format_montant(montant, devise, groupe=NNBSP))
