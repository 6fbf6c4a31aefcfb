"""The receipt verification page: what a person who scanned the QR code reads in a browser.

The route ``GET /api/recus/verifier/{numero}`` answers JSON to programs and this page to browsers (content
negotiation on ``Accept``, ``veut_html``). The page says the same as the JSON — organisation, number, amount,
date, valid or cancelled/refunded — and nothing about the member. Self-contained (inline style, no script, no
external resource) so it opens on a cheap phone with a poor connection.
"""

from __future__ import annotations

from datetime import UTC, datetime
from html import escape

from unionflow.paiements.page_publique import document, montant_fcfa
from unionflow.paiements.schemas import VerificationRecuResponse

# No script, no external resource: the page's own inline style only.
CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"
ETATS = {
    "VALIDE": ("Reçu valide", "Ce paiement a bien été enregistré par l'organisation et tient toujours.", "ok"),
    "ANNULE": ("Reçu annulé", "Ce reçu est authentique mais le paiement a été annulé: il ne vaut plus "
                              "quittance.", "ko"),
    "REMBOURSE": ("Reçu remboursé", "Ce reçu est authentique mais le paiement a été remboursé: il ne vaut plus "
                                    "quittance.", "ko"),
}
LIBELLES = {"VALIDE": "Valide", "ANNULE": "Annulé", "REMBOURSE": "Remboursé"}
_MOIS = ("janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août", "septembre", "octobre",
         "novembre", "décembre")


def _q(accept: str) -> dict[str, float]:
    """Media ranges of an Accept header with their quality (absent: 1; unreadable: 0)."""
    ranges: dict[str, float] = {}
    for part in accept.split(","):
        media, *params = [p.strip() for p in part.split(";")]
        if not media:
            continue
        q = 1.0
        for param in params:
            key, _, value = param.partition("=")
            if key.strip().lower() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        ranges[media.lower()] = max(q, ranges.get(media.lower(), 0.0))
    return ranges


def veut_html(accept: str | None) -> bool:
    """A browser names text/html; a program asks for JSON or anything (``*/*``, no header): JSON, as before."""
    ranges = _q(accept or "")
    html = ranges.get("text/html", 0.0)
    json = max(ranges.get("application/json", 0.0), ranges.get("application/problem+json", 0.0))
    return html > 0 and html >= json


def date_longue(value: datetime) -> str:
    # In UTC, as the printed receipt says (the union's countries keep UTC all year).
    utc = value.astimezone(UTC) if value.tzinfo else value
    return f"{utc.day} {_MOIS[utc.month - 1]} {utc.year} à {utc:%H:%M} (UTC)"


STYLE = """.carte { overflow: hidden; }
.bandeau { padding: 1.25rem 1rem; color: #fff; }
.ok .bandeau { background: #047857; }
.ko .bandeau { background: #b91c1c; }
.inconnu .bandeau { background: #4b5563; }
.bandeau h1 { margin: 0; font-size: 1.5rem; }
.bandeau p { margin: .5rem 0 0; font-size: 1rem; line-height: 1.4; }
dl { margin: 0; padding: 1rem; gap: .75rem 1rem; }
.montant { font-size: 1.25rem; }
footer { padding: 1rem; font-size: .85rem; color: #4b5563; border-top: 1px solid #e5e7eb; line-height: 1.4; }"""


def _document(titre: str, corps: str, classe: str) -> str:
    return document(titre, corps, style=STYLE, classe=classe)


def _recu_par(recu: VerificationRecuResponse) -> str:
    return f"\n<dt>Reçu par</dt><dd>{escape(recu.recu_par)}</dd>" if recu.recu_par else ""


def page_recu(recu: VerificationRecuResponse) -> str:
    titre, explication, classe = ETATS.get(recu.statut.value, (f"Reçu {recu.statut.value}", "", "ko"))
    corps = f"""<div class="bandeau">
<h1>{escape(titre)}</h1>
<p>{escape(explication)}</p>
</div>
<dl>
<dt>Organisation</dt><dd>{escape(recu.organisation)}</dd>
<dt>Reçu n°</dt><dd>{escape(recu.numero_recu)}</dd>
<dt>Montant</dt><dd class="montant">{montant_fcfa(recu.montant, recu.devise)}</dd>
<dt>Date du paiement</dt><dd>{escape(date_longue(recu.date_paiement))}</dd>
<dt>État</dt><dd>{escape(LIBELLES.get(recu.statut.value, recu.statut.value))}</dd>{_recu_par(recu)}
{_annulation(recu)}</dl>
<footer>Vérification faite auprès de l'organisation avec la clé imprimée dans le QR code du reçu. Pour des
raisons de confidentialité, cette page ne donne aucune information sur le membre: comparez le numéro et le
montant avec ceux du reçu papier.</footer>"""
    return _document(titre, corps, classe)


def _annulation(recu: VerificationRecuResponse) -> str:
    """Cancelled or refunded: when, who asked, who approved, why, and the refund receipt."""
    if recu.approuve_par is None or recu.date_annulation is None:
        return ""
    rows = [("Annulé le" if recu.numero_remboursement is None else "Remboursé le", date_longue(recu.date_annulation)),
            ("Demandé par", recu.demande_par or ""), ("Approuvé par", recu.approuve_par),
            ("Motif", recu.motif_annulation or "")]
    if recu.numero_remboursement:
        rows.append(("Reçu de remboursement", recu.numero_remboursement))
    return "".join(f"<dt>{escape(k)}</dt><dd>{escape(v)}</dd>\n" for k, v in rows)


def page_introuvable() -> str:
    corps = """<div class="bandeau">
<h1>Reçu introuvable</h1>
<p>Aucun reçu ne correspond à ce numéro et à cette clé de vérification.</p>
</div>
<footer>Vérifiez que le QR code a été lu en entier. Un reçu dont le lien a été modifié, ou un faux reçu, ne peut
pas être vérifié: adressez-vous au trésorier de l'organisation qui l'a émis.</footer>"""
    return _document("Reçu introuvable", corps, "inconnu")
