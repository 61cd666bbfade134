"""The report as one self-contained HTML file: inline CSS, no scripts, no external assets.

The prose is rendered by the shared safe parser (no raw HTML, links only to http and https);
everything this module adds is escaped here.
"""

from __future__ import annotations

from html import escape

from engine.export.document import ExportDocument, ExportSource
from engine.export.markup import parser

_STYLE = """
body { font-family: Georgia, 'Times New Roman', serif; line-height: 1.55; color: #1b1b1b;
       max-width: 46rem; margin: 2.5rem auto; padding: 0 1.25rem; }
h1, h2, h3 { font-family: Helvetica, Arial, sans-serif; line-height: 1.25; }
h2 { border-bottom: 1px solid #ddd; padding-bottom: .2rem; margin-top: 2.2rem; }
blockquote { color: #555; border-left: 3px solid #ccc; margin: 1rem 0; padding: 0 1rem; }
code, pre { font-family: Menlo, Consolas, monospace; font-size: .9em; }
pre { background: #f5f5f5; padding: .75rem; overflow-x: auto; }
ol.sources { list-style: none; padding-left: 0; }
ol.sources li, ul.audit li { margin: .3rem 0; }
.location { color: #555; word-break: break-all; }
table { border-collapse: collapse; width: 100%; font-size: .9em; }
th, td { border: 1px solid #ddd; padding: .35rem .5rem; text-align: left; vertical-align: top; }
.supported { color: #1a7f37; } .weak { color: #9a6700; } .unsupported { color: #cf222e; }
.meta { color: #555; font-size: .9em; }
"""


def source_item(source: ExportSource, tag: str = "li") -> str:
    """One source: `[n]`, its title, then its location (a link when web)."""
    if source.link:
        where = f'<a href="{escape(source.link, quote=True)}">{escape(source.location)}</a>'
    else:
        where = escape(source.location)
    title = f"{escape(source.title)} — " if source.title else ""
    return (
        f'<{tag} id="source-{source.number}">'
        f'[{source.number}] {title}<span class="location">{where}</span></{tag}>'
    )


def body_html(document: ExportDocument) -> str:
    """The prose rendered by the safe parser."""
    return parser().render(document.body)


def sources_html(document: ExportDocument, *, as_list: bool = True) -> str:
    """The numbered sources: a list in HTML; one paragraph each where a list would number
    them a second time (the PDF renderer ignores CSS)."""
    heading = '<h2 id="sources">Sources</h2>\n'
    if not document.sources:
        return heading + "<p>No source kept.</p>"
    if not as_list:
        return heading + "\n".join(source_item(s, "p") for s in document.sources)
    items = "\n".join(source_item(source) for source in document.sources)
    return heading + f'<ol class="sources">\n{items}\n</ol>'


def _claims_table(document: ExportDocument) -> str:
    if not document.claims:
        return ""
    rows = "\n".join(
        f'<tr><td class="{escape(claim.status)}" align="left">{escape(claim.status)}</td>'
        f'<td align="left">{claim.score:.2f}</td><td align="left">{escape(claim.action)}</td>'
        f'<td align="left">{escape(claim.text)}</td>'
        f'<td align="left">{escape(claim.reason)}</td></tr>'
        for claim in document.claims
    )
    return (
        '<table><thead><tr><th width="19%">Verdict</th><th width="9%">Score</th>'
        '<th width="12%">Action</th><th width="40%">Claim</th><th width="20%">Reason</th>'
        f"</tr></thead>\n<tbody>\n{rows}\n</tbody></table>"
    )


def audit_html(document: ExportDocument) -> str:
    kept = "\n".join(
        f"<li>[{source.number}] {escape(source.location)}</li>" for source in document.sources
    )
    removed = "\n".join(
        f"<li>[{entry.number}] {escape(entry.source)}"
        + (f" — {escape(entry.reason)}" if entry.reason else "")
        + "</li>"
        for entry in document.removed
    )
    return "\n".join(
        [
            '<h2 id="audit">Appendix: verification audit</h2>',
            '<ul class="meta">',
            f"<li>Session: {escape(document.session_id) or 'unsaved'}</li>",
            f"<li>Mode: {escape(document.mode)}</li>",
            f"<li>Citation check: {escape(document.verification)}</li>",
            f"<li>Claim grounding: {escape(document.grounding)}</li>",
            "</ul>",
            f"<h3>Citations kept ({len(document.sources)})</h3>",
            f'<ul class="audit">{kept or "<li>none</li>"}</ul>',
            f"<h3>Citations removed ({len(document.removed)})</h3>",
            f'<ul class="audit">{removed or "<li>none</li>"}</ul>',
            f"<h3>Claim support ({len(document.claims)})</h3>",
            f"<p>{escape(document.claim_summary)}</p>",
            _claims_table(document),
        ]
    )


def to_html(document: ExportDocument) -> str:
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        # Nothing but the inline style may load or run, whatever a report ever holds.
        '<meta http-equiv="Content-Security-Policy" '
        "content=\"default-src 'none'; style-src 'unsafe-inline'\">\n"
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{escape(document.title)}</title>\n"
        f"<style>{_STYLE}</style>\n</head>\n<body>\n<main>\n"
        f"{body_html(document)}\n{sources_html(document)}\n{audit_html(document)}\n"
        "</main>\n</body>\n</html>\n"
    )
