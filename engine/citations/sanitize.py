"""Report sanitization: drop unsafe or unreliable URLs and close up citation numbers."""

from __future__ import annotations

import ipaddress
import re

from engine.citations.parse import (
    ParsedReport,
    RewriteNotes,
    SourceEntry,
    collapse_links,
    find_tool_markup,
    parse_report,
    render_report,
    rewrite_body,
    tidy_after_removal,
)
from engine.citations.results import SanitizationReason, SanitizationRemoval, SanitizedReport
from engine.citations.rewrite import MarkerMap, UrlMap
from engine.citations.sections import forms_structure
from engine.citations.urls import normalize_url, url_scheme

# Shorteners hide where a link goes; a reader cannot tell what was cited.
URL_SHORTENER_HOSTS = frozenset(
    {
        "bit.ly", "tinyurl.com", "t.co", "goo.gl", "ow.ly", "is.gd", "buff.ly", "short.io",
        "rb.gy", "cutt.ly", "lnkd.in", "soo.gd", "s.coop", "cli.gs", "budurl.com", "yourls.org",
    }
)  # fmt: skip

SAFE_SCHEMES = frozenset({"http", "https"})


def _host(url: str) -> str:
    """Lower-cased host without `www.`, port, user info or IPv6 brackets.

    Parsed by hand: it runs for every URL of every report, and malformed URLs must still
    yield their host rather than an exception.
    """
    _, separator, rest = url.partition("://")
    if not separator:
        return ""
    authority = rest
    for stop in "/?#":
        authority = authority.split(stop, 1)[0]
    authority = authority.rsplit("@", 1)[-1].lower()
    if authority.startswith("["):
        host = authority[1:].split("]", 1)[0]
    else:
        host = authority.split(":", 1)[0]
    return host.rstrip(".").removeprefix("www.")


_IPV4_LOOKING = "0123456789.xabcdefABCDEF"
_NUMERIC_LABEL = re.compile(r"0x[0-9a-f]*|[0-9]+")


def _is_ip_literal(host: str) -> bool:
    candidate = host.strip("[]").split("%", 1)[0]
    # Cheap rejection first: names with other letters are neither IPv4 nor IPv6 literals (a
    # strip of the IPv4-looking characters leaves something; it stops at the first other one).
    if ":" not in candidate and candidate.strip(_IPV4_LOOKING):
        return False
    try:
        ipaddress.ip_address(candidate)
    except ValueError:
        # Numeric host forms (`2130706433`, `0x7f.1`, `127.1`, `0177.0.0.1`) are IPv4
        # addresses in disguise: no real top-level domain is a number.
        return _NUMERIC_LABEL.fullmatch(candidate.rsplit(".", 1)[-1].lower()) is not None
    return True


def unsafe_url_reason(url: str) -> SanitizationReason | None:
    """Why `url` must not appear in a report, or None when it may stay."""
    if not url.startswith(("https://", "http://")) and url_scheme(url) not in SAFE_SCHEMES:
        return "unsafe_scheme"
    if url.endswith("...") or "…" in url:
        return "truncated_url"
    host = _host(url)
    if host in URL_SHORTENER_HOSTS:
        return "shortened_url"
    if host and _is_ip_literal(host):
        return "ip_address_url"
    return None


# Removing a URL can, in contrived text, leave a line that parses as a new entry; repeating
# until nothing changes makes sanitizing a sanitized report a no-op.
_MAX_PASSES = 10


def sanitize_report(report: str, *, parsed: ParsedReport | None = None) -> SanitizedReport:
    """Remove unsafe URLs with their citations and renumber the rest 1..k.

    Leaked tool-call markup and everything after it is cut first. Entries whose URL is a
    shortener, truncated, an IP literal or not http(s) leave the sources list together with
    their inline markers. Markdown links in the prose collapse to their text; a bare URL in the
    prose becomes its citation when it is a kept source and is deleted otherwise. Kept entries
    are numbered 1..k in list order, body and list together, in a single pass.

    `parsed` is `parse_report(report)` when the caller already has it (the verifier does).
    """
    first, risky = _sanitize_once(report, parsed)
    text = first.sanitized_report
    removed = list(first.removed)
    renumbered = dict(first.renumbered)
    markup_removed = first.tool_markup_removed
    previous = report
    for _ in range(_MAX_PASSES - 1):
        if not risky or text == previous:
            break
        again, risky = _sanitize_once(text)
        if again.sanitized_report == text:
            break
        removed.extend(again.removed)
        renumbered = {
            old: again.renumbered[new] for old, new in renumbered.items() if new in again.renumbered
        }
        markup_removed = markup_removed or again.tool_markup_removed
        previous, text = text, again.sanitized_report
    return SanitizedReport(
        sanitized_report=text,
        removed=removed,
        renumbered=renumbered,
        tool_markup_removed=markup_removed,
    )


def _renumber_entries(
    parsed: ParsedReport,
    removed: list[SanitizationRemoval],
    replacements: dict[int, str | None],
) -> tuple[dict[int, int], list[tuple[str, int]]]:
    """Drop entries with unsafe URLs and number the rest 1..k in list order.

    Returns old number -> new number, and each kept URL with its new number.
    """
    renumbered: dict[int, int] = {}
    kept_urls: list[tuple[str, int]] = []
    next_number = 1
    for index, block in enumerate(parsed.blocks):
        if not isinstance(block, SourceEntry):
            continue
        reason = unsafe_url_reason(block.url) if block.url is not None else None
        if reason is not None and block.url is not None:
            removed.append(SanitizationRemoval(number=block.number, url=block.url, reason=reason))
            replacements[index] = None
            continue
        new_number = next_number
        next_number += 1
        # A number reused by a later entry keeps pointing at the first one.
        renumbered.setdefault(block.number, new_number)
        if block.url is not None:
            kept_urls.append((block.url, new_number))
        if new_number != block.number:
            replacements[index] = block.render(number=new_number)
    return renumbered, kept_urls


def _sanitize_once(report: str, given: ParsedReport | None = None) -> tuple[SanitizedReport, bool]:
    """One sanitizing pass (see `sanitize_report`), and whether it must be repeated."""
    cut_at = find_tool_markup(report)
    text = report if cut_at is None else report[:cut_at].rstrip()
    parsed = given if given is not None and cut_at is None else parse_report(text)
    removed: list[SanitizationRemoval] = []
    replacements: dict[int, str | None] = {}
    renumbered, kept_urls = _renumber_entries(parsed, removed, replacements)

    # Cutting markup or dropping a heading can change how the rest parses.
    notes = RewriteNotes(structural_risk=cut_at is not None)
    has_entries = bool(parsed.entries)
    dropped_blocks = {index for index, value in replacements.items() if value is None}
    for heading in parsed.headings_left_empty(dropped_blocks):
        replacements[heading] = None
        notes.structural_risk = True

    # Without any sources list there is no numbering to close up: leave markers alone.
    map_marker: MarkerMap = renumbered.get if has_entries else _unchanged

    body_urls = _BodyUrls(kept_urls, removed)
    _rewrite_bodies(parsed, replacements, notes, map_marker, body_urls.citation, removed)
    sanitized = render_report(parsed, replacements)
    if any(value is None for value in replacements.values()):
        sanitized = tidy_after_removal(sanitized, text)
    sanitized_report = SanitizedReport(
        sanitized_report=sanitized,
        removed=removed,
        renumbered=renumbered,
        tool_markup_removed=cut_at is not None,
    )
    return sanitized_report, notes.structural_risk


def _unchanged(number: int) -> int:
    return number


class _BodyUrls:
    """A bare URL in the prose becomes its citation when it is a kept, safe source."""

    def __init__(self, kept_urls: list[tuple[str, int]], removed: list[SanitizationRemoval]):
        self.kept_urls = kept_urls
        self.removed = removed
        self.kept_by_url: dict[str, int] = {}  # normalized URL -> new number, built on first use

    def citation(self, url: str) -> str | None:
        """`[n]` for a kept source's URL; None (and the removal recorded) for any other."""
        if not self.kept_by_url and self.kept_urls:
            for kept_url, kept_number in self.kept_urls:
                self.kept_by_url.setdefault(normalize_url(kept_url), kept_number)
        number = self.kept_by_url.get(normalize_url(url))
        if number is not None and unsafe_url_reason(url) is None:
            return f"[{number}]"
        self.removed.append(
            SanitizationRemoval(
                number=None, url=url, reason=unsafe_url_reason(url) or "not_a_listed_source"
            )
        )
        return None


def _rewrite_bodies(
    parsed: ParsedReport,
    replacements: dict[int, str | None],
    notes: RewriteNotes,
    map_marker: MarkerMap,
    map_body_url: UrlMap,
    removed: list[SanitizationRemoval],
) -> None:
    """Collapse the links of every prose block and renumber or drop its citations."""
    known = parsed.entry_numbers
    for index, prose in parsed.body_blocks():
        collapsed, link_targets = collapse_links(prose)
        for target in link_targets:
            reason = unsafe_url_reason(target)
            if reason is not None:
                removed.append(SanitizationRemoval(number=None, url=target, reason=reason))
        if collapsed != prose:
            notes.structural_risk = True
        # Superscripts are never renumbered here: verification has already turned the ones
        # that cite into `[n]`, and any left are exponents that must not start citing.
        rewritten = rewrite_body(collapsed, map_marker, known, map_body_url, notes, False)
        if rewritten != prose:
            replacements[index] = rewritten
            if forms_structure(rewritten):
                notes.structural_risk = True
