"""Citation verification: keep only citations whose source a tool actually returned."""

from __future__ import annotations

from engine.citations.parse import (
    ParsedReport,
    RewriteNotes,
    SourceEntry,
    parse_report,
    render_report,
    rewrite_body,
    tidy_after_removal,
)
from engine.citations.registry import SourceRegistry
from engine.citations.results import (
    KEY_NOT_IN_REGISTRY,
    UNVERIFIABLE,
    URL_NOT_IN_REGISTRY,
    CitationVerification,
    RemovedCitation,
    ValidCitation,
    duplicate_reason,
)


def _resolve(entry: SourceEntry, registry: SourceRegistry) -> tuple[str | None, str | None]:
    """(registry locator, None) for a retrieved source, else (None, removal reason)."""
    if entry.url is not None:
        found = registry.lookup_url(entry.url)
        return (found, None) if found is not None else (None, URL_NOT_IN_REGISTRY)
    if entry.key is not None:
        found = registry.lookup_document(entry.key)
        return (found, None) if found is not None else (None, KEY_NOT_IN_REGISTRY)
    return None, UNVERIFIABLE


# Deleting a marker can, in contrived text, bring two fragments together into something that
# parses as a new entry (`[2024] [^1]: x` becomes `[2024]: x`). Re-verifying until nothing
# changes makes the result a fixed point; real reports settle after the first pass.
_MAX_PASSES = 10


def verify_citations(
    report: str, registry: SourceRegistry, *, strict: bool = False
) -> CitationVerification:
    """Check every entry of the report's sources list against the registry.

    A matched entry is rewritten to the registry's URL (or key). Entries that match nothing are
    removed with a reason; when two entries resolve to one source the lowest number stays and
    the body's markers are rewritten to it. Inline markers whose entry was removed or never
    existed are deleted. Numbers are not closed up here: `sanitize_report` does that, so this
    audit trail speaks in the numbers the writer used. Verifying the result changes nothing.

    An empty registry returns the report unchanged (`unverified` / `no_sources`) unless
    `strict`: then nothing was retrieved, so every citation is removed as unverifiable
    against it — what the engine does before a report reaches a person.
    """
    result, risky = _verify_once(report, registry, strict=strict)
    removed = list(result.removed_citations)
    for _ in range(_MAX_PASSES - 1):
        if not risky or result.verified_report == report:
            break
        report = result.verified_report
        result, risky = _verify_once(report, registry, strict=strict)
        removed.extend(result.removed_citations)
    return result.model_copy(update={"removed_citations": removed})


def _verify_once(
    report: str, registry: SourceRegistry, *, strict: bool = False
) -> tuple[CitationVerification, bool]:
    """One verification pass (see `verify_citations`), and whether it must be repeated."""
    if len(registry) == 0 and not strict:
        return CitationVerification(
            verified_report=report, status="unverified", reason="no_sources"
        ), False

    parsed = parse_report(report)
    resolved: dict[int, str] = {}  # block index -> registry locator
    removed: dict[int, RemovedCitation] = {}  # block index -> removal
    seen_numbers: set[int] = set()
    for index, block in enumerate(parsed.blocks):
        if not isinstance(block, SourceEntry):
            continue
        if block.number in seen_numbers:
            # A second entry reusing a number cannot be told apart from the first by markers.
            removed[index] = RemovedCitation(
                number=block.number, source=block.locator, reason=duplicate_reason(block.number)
            )
            continue
        seen_numbers.add(block.number)
        locator, reason = _resolve(block, registry)
        if locator is None:
            removed[index] = RemovedCitation(
                number=block.number, source=block.locator, reason=reason or UNVERIFIABLE
            )
        else:
            resolved[index] = locator

    # The lowest number citing a source keeps it; higher numbers become duplicates of it.
    keeper: dict[str, int] = {}
    for index in resolved:
        entry = parsed.blocks[index]
        assert isinstance(entry, SourceEntry)
        locator = resolved[index]
        keeper[locator] = min(keeper.get(locator, entry.number), entry.number)

    number_map: dict[int, int] = {}
    valid: list[ValidCitation] = []
    replacements: dict[int, str | None] = {}
    for index, locator in resolved.items():
        entry = parsed.blocks[index]
        assert isinstance(entry, SourceEntry)
        kept_number = keeper[locator]
        number_map[entry.number] = kept_number
        if kept_number != entry.number:
            removed[index] = RemovedCitation(
                number=entry.number, source=entry.locator, reason=duplicate_reason(kept_number)
            )
            continue
        title = entry.title or registry.title_for(locator)
        valid.append(ValidCitation(number=entry.number, source=locator, title=title))
        if entry.url is not None and entry.url != locator:
            replacements[index] = entry.render(url=locator)
        elif entry.key is not None and entry.key != locator:
            replacements[index] = entry.render(key=locator)

    for index in removed:
        replacements[index] = None
    notes = RewriteNotes()
    if parsed.heading_index is not None and parsed.heading_left_empty(removed):
        replacements[parsed.heading_index] = None
        # Without this heading an earlier "Sources" line may now head the section.
        notes.structural_risk = True

    _rewrite_prose(parsed, number_map, replacements, notes)
    text = render_report(parsed, replacements)
    if removed:
        text = tidy_after_removal(text, report)

    ordered_removed = [removed[index] for index in sorted(removed)]
    if valid:
        verified = CitationVerification(
            verified_report=text,
            valid_citations=valid,
            removed_citations=ordered_removed,
            status="verified",
            reason="valid_citations",
        )
    else:
        verified = CitationVerification(
            verified_report=text,
            removed_citations=ordered_removed,
            status="unverified",
            reason="no_sources" if len(registry) == 0 else "no_valid_citations",
        )
    return verified, notes.structural_risk


def _rewrite_prose(
    parsed: ParsedReport,
    number_map: dict[int, int],
    replacements: dict[int, str | None],
    notes: RewriteNotes,
) -> None:
    known = parsed.entry_numbers
    for index, text in parsed.body_blocks():
        rewritten = rewrite_body(text, number_map.get, known, notes=notes)
        if rewritten != text:
            replacements[index] = rewritten
