"""The public payment page, for a browser: type the code, see the member's initials and what is owed, give a phone
number for the confirmation and go to Wave. Self-contained (inline style, no script, no external resource) so it
opens on a cheap phone; forms post only to this service."""

from __future__ import annotations

from html import escape

from unionflow.core.code_paiement import afficher
from unionflow.paiements.code_paiement.schemas import CotisationParCodeResponse
from unionflow.paiements.page_publique import document, montant_fcfa

PREFIX = "/api/paiements/par-code"
CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'self' https:"
STYLE = """.carte { padding: 1rem; }
h1 { font-size: 1.4rem; margin: 0 0 .75rem; }
dl { gap: .5rem 1rem; }
label { display: block; margin: .75rem 0 .25rem; }
input { font-size: 1.2rem; width: 100%; box-sizing: border-box; padding: .5rem; }
button { margin-top: 1rem; font-size: 1.1rem; padding: .6rem 1rem; width: 100%; background: #1d4ed8;
         color: #fff; border: 0; border-radius: .5rem; }
.erreur { color: #b91c1c; font-weight: 600; } p { line-height: 1.4; }"""


def _document(titre: str, corps: str) -> str:
    return document(titre, f"<h1>{escape(titre)}</h1>\n{corps}", style=STYLE)


def page_saisie(erreur: str | None = None, saisie: str = "") -> str:
    message = f'<p class="erreur">{escape(erreur)}</p>\n' if erreur else ""
    return _document("Payer une cotisation", f"""{message}<p>Tapez le code de paiement de la cotisation (11 chiffres,
imprimé sur l'avis ou le rappel du membre).</p>
<form method="get" action="{PREFIX}">
<label for="code">Code de paiement</label>
<input id="code" name="code" inputmode="numeric" autocomplete="off" maxlength="20" value="{escape(saisie)}" required>
<button type="submit">Continuer</button>
</form>""")


def page_cotisation(dues: CotisationParCodeResponse) -> str:
    fiche = f"""<dl>
<dt>Code</dt><dd>{escape(afficher(dues.code_paiement))}</dd>
<dt>Membre</dt><dd>{escape(dues.initiales)}</dd>
<dt>Organisation</dt><dd>{escape(dues.organisation)}</dd>
<dt>Objet</dt><dd>{escape(dues.libelle)}</dd>
<dt>Échéance</dt><dd>{dues.date_echeance:%d/%m/%Y}</dd>
<dt>Reste à payer</dt><dd>{montant_fcfa(dues.montant_restant, dues.devise)}</dd>
</dl>"""
    if not dues.payable:
        return _document("Rien à payer", fiche + "\n<p>Cette cotisation est réglée ou annulée.</p>")
    return _document("Payer une cotisation", fiche + f"""
<form method="post" action="{PREFIX}/{escape(dues.code_paiement)}/wave">
<label for="tel">Votre numéro (facultatif, format +221…): un SMS vous confirmera l'arrivée du paiement</label>
<input id="tel" name="telephonePayeur" inputmode="tel" autocomplete="tel" maxlength="16">
<button type="submit">Payer {montant_fcfa(dues.montant_restant, dues.devise)} avec Wave</button>
</form>
<p>Vérifiez les initiales et l'organisation avant de payer: l'argent va à cette cotisation.</p>""")

