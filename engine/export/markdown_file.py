"""The report as a Markdown file: prose, a numbered sources list, the audit as an appendix."""

from __future__ import annotations

from engine.export.document import ExportDocument, ExportSource
from engine.export.markup import escape_text


def source_line(source: ExportSource) -> str:
    """`[n] Title — location`: the location as an autolink when it is a web link."""
    where = f"<{source.link}>" if source.link else escape_text(source.location)
    title = escape_text(source.title)
    return f"[{source.number}] {title} — {where}" if title else f"[{source.number}] {where}"


def audit_lines(document: ExportDocument) -> list[str]:
    lines = [
        "## Appendix: verification audit",
        "",
        f"- Session: {escape_text(document.session_id) or 'unsaved'}",
        f"- Mode: {document.mode}",
        f"- Citation check: {escape_text(document.verification)}",
        f"- Claim grounding: {document.grounding}",
        "",
        f"### Citations kept ({len(document.sources)})",
        "",
    ]
    lines += [f"- {source_line(source)}" for source in document.sources] or ["- none"]
    lines += ["", f"### Citations removed ({len(document.removed)})", ""]
    lines += [
        f"- [{entry.number}] {escape_text(entry.source)}"
        + (f" — {escape_text(entry.reason)}" if entry.reason else "")
        for entry in document.removed
    ] or ["- none"]
    lines += ["", f"### Claim support ({len(document.claims)})", "", document.claim_summary, ""]
    for claim in document.claims:
        verdict = f"**{claim.status}** ({claim.score:.2f}, {claim.action})"
        line = f"- {verdict}: {escape_text(claim.text)}"
        if claim.reason and claim.status != "supported":
            line += f" — {escape_text(claim.reason)}"
        lines.append(line)
    return lines


def to_markdown(document: ExportDocument) -> str:
    parts = [document.body.rstrip(), "", "## Sources", ""]
    parts += [f"- {source_line(source)}" for source in document.sources] or ["- none kept"]
    parts += ["", *audit_lines(document)]
    return "\n".join(parts).rstrip() + "\n"
