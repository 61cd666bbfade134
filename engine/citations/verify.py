"""Citation verification: keep only citations whose source a tool actually returned.

The model's sources sections, in whatever format, are consumed; its citations, in whatever
style, are resolved against them and the registry; the report comes back with canonical
`[n]` markers and one canonical `## Sources` section, in order of first use.
"""

from __future__ import annotations

from pydantic import TypeAdapter

from engine.citations.canonical import SOURCES_HEADING, BodyCiter, canonical_section_entries
from engine.citations.markers import superscripts_cite
from engine.citations.registry import SourceRegistry
from engine.citations.resolve import SourceTable, build_table
from engine.citations.results import CitationVerification, RemovedCitation, ValidCitation
from engine.citations.rewrite import tidy_after_removal
from engine.citations.scopes import numbering_offsets, shift_entries
from engine.citations.sections import (
    ParsedReport,
    ends_in_code_fence,
    forms_structure,
    parse_report,
    parse_with_sources,
)

# Every valid citation of a report in one validation (a report may keep a thousand sources;
# one call is twice as fast as building them one by one).
_VALID_CITATIONS = TypeAdapter(list[ValidCitation])

# Deleting a marker can, in contrived text, bring two fragments together into something that
# parses as a new entry (`[2024] [^1]: x` becomes `[2024]: x`). Re-verifying until nothing
# changes makes the result a fixed point; real reports settle after the first pass.
_MAX_PASSES = 10


def verify_citations(
    report: str, registry: SourceRegistry, *, strict: bool = False
) -> CitationVerification:
    """Check every citation of the report against the registry.

    Entries of the model's sources lists resolve to the registry's URL (or key); entries that
    match nothing are removed with a reason, and when two entries resolve to one source the
    lowest number stays. Inline citations in any style (numbered, by title, by URL, by link)
    become `[n]` markers of a retrieved source or are deleted with a reason. The report ends
    with one canonical `## Sources` section in order of first use (then listed but uncited
    sources). Numbers are the writer's, not closed up: `sanitize_report` does that, so this
    audit trail speaks in the numbers the writer used; a source cited only by name or URL
    gets a number above every listed one. Verifying the result changes nothing.

    An empty registry returns the report unchanged (`unverified` / `no_sources`) unless
    `strict`: then nothing was retrieved, so every citation is removed as unverifiable
    against it — what the engine does before a report reaches a person.
    """
    return verify_and_parse(report, registry, strict=strict)[0]


def verify_and_parse(
    report: str, registry: SourceRegistry, *, strict: bool = False
) -> tuple[CitationVerification, ParsedReport | None]:
    """`verify_citations`, with `parse_report` of the verified report when it came for free.

    The verifier knows the structure of what it wrote (the prose, then the canonical sources
    section), so whoever reads the verified report next (the sanitizer) need not parse it
    again. None when knowing it would take a parse.
    """
    result, risky, parsed = _verify_once(report, registry, strict=strict)
    removed = list(result.removed_citations)
    for _ in range(_MAX_PASSES - 1):
        if not risky or result.verified_report == report:
            break
        report = result.verified_report
        result, risky, parsed = _verify_once(report, registry, strict=strict)
        removed.extend(result.removed_citations)
    return result.model_copy(update={"removed_citations": removed}), parsed


def _verify_once(
    report: str, registry: SourceRegistry, *, strict: bool = False
) -> tuple[CitationVerification, bool, ParsedReport | None]:
    """One verification pass (see `verify_and_parse`), and whether it must be repeated."""
    if len(registry) == 0 and not strict:
        return (
            CitationVerification(verified_report=report, status="unverified", reason="no_sources"),
            False,
            None,
        )

    parsed = parse_report(report)
    written_numbers = parsed.entry_numbers
    offsets = numbering_offsets(parsed)
    shift_entries(parsed, offsets)
    table, removed_entries = build_table(parsed, registry)
    prose = parsed.prose_blocks()
    superscripts = superscripts_cite("\n".join(text for _, text in prose), written_numbers)
    citer = BodyCiter(table, superscripts, written_numbers)
    rewritten = [citer.rewrite(text, offsets.get(index, 0)) for index, text in prose]
    changed = zip(rewritten, prose, strict=True)
    if any(new != old and forms_structure(new) for new, (_, old) in changed):
        citer.notes.structural_risk = True
    if len(prose) > 1 and any("```" in text or "~~~" in text for text in rewritten):
        # Each block's code was read on its own; joined, a fence may pair with another
        # block's and enclose (or free) a marker, so the joined text is verified again.
        citer.notes.structural_risk = True

    order = _listing_order(citer.used, parsed, table)
    text, text_parsed = _assemble(report, parsed, prose, rewritten, order, table)
    valid = _VALID_CITATIONS.validate_python(
        [
            {
                "number": number,
                "source": table.locator_of[number],
                "title": table.titles.get(number) or registry.title_for(table.locator_of[number]),
            }
            for number in order
        ]
    )
    removed = [removed_entries[index] for index in sorted(removed_entries)] + citer.removed
    cited_inline = any(number in table.locator_of for number in citer.used)
    result = _result(text, valid, removed, registry, cited_inline)
    return result, citer.notes.structural_risk, text_parsed


def _listing_order(used: list[int], parsed: ParsedReport, table: SourceTable) -> list[int]:
    """Cited numbers in order of first use, then kept entries the prose never cited."""
    order = [number for number in used if number in table.locator_of]
    seen = set(order)
    for entry in parsed.entries:
        kept = table.number_map.get(entry.number)
        if kept is not None and kept not in seen and kept in table.locator_of:
            seen.add(kept)
            order.append(kept)
    return order


def _assemble(
    report: str,
    parsed: ParsedReport,
    prose: list[tuple[int, str]],
    rewritten: list[str],
    order: list[int],
    table: SourceTable,
) -> tuple[str, ParsedReport | None]:
    """The rewritten prose, then the canonical sources section (if any source is left).

    Also the parse of that text when it is known without parsing (see `verify_and_parse`).
    """
    consumed = len(prose) != len(parsed.blocks)
    changed = any(new != old for new, (_, old) in zip(rewritten, prose, strict=True))
    if not consumed and not changed:
        return report, parsed
    body = "\n".join(rewritten)
    body = tidy_after_removal(body, "") if consumed or changed else body
    if not order:
        return (body + "\n" if report.endswith("\n") and body else body), None
    lines, entries = canonical_section_entries(order, table)
    section = "\n".join([SOURCES_HEADING, *lines])
    if ends_in_code_fence(body):
        # The prose ends inside a code fence; close it so the sources are not read as code.
        body += "\n```"
    text = f"{body}\n\n{section}" if body else section
    final_newline = report.endswith("\n")
    known = parse_with_sources(body, SOURCES_HEADING, lines, entries, final_newline=final_newline)
    return (text + "\n" if final_newline else text), known


def _result(
    text: str,
    valid: list[ValidCitation],
    removed: list[RemovedCitation],
    registry: SourceRegistry,
    cited_inline: bool,
) -> CitationVerification:
    if valid and not cited_inline:
        # A list of real sources under prose that cites none of them proves nothing.
        return CitationVerification(
            verified_report=text,
            valid_citations=valid,
            removed_citations=removed,
            status="unverified",
            reason="no_inline_citations",
        )
    if valid:
        return CitationVerification(
            verified_report=text,
            valid_citations=valid,
            removed_citations=removed,
            status="verified",
            reason="valid_citations",
        )
    return CitationVerification(
        verified_report=text,
        removed_citations=removed,
        status="unverified",
        reason="no_sources" if len(registry) == 0 else "no_valid_citations",
    )
