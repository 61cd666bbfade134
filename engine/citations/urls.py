"""URL normalization used to match a cited URL against the URLs a tool really returned.

Normalization only decides *whether* two spellings name the same page; the registry always
hands back the URL exactly as the tool returned it.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from urllib.parse import parse_qsl, unquote, urlsplit

# Query parameters that only say how someone arrived at a page, never which page it is.
_TRACKING_EXACT = frozenset({"ref", "source"})
_TRACKING_PREFIX = "utm_"

# RFC 3986 scheme followed by a colon and more address ("Title: text" is not a URL).
_SCHEME_RE = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:(?=\S)")


def has_scheme(text: str) -> bool:
    """True when `text` starts with a URL scheme (`https:`, `javascript:`, `data:` ...)."""
    return bool(_SCHEME_RE.match(text.strip()))


def url_scheme(text: str) -> str:
    """The lower-cased scheme of `text`, or "" when it has none."""
    match = _SCHEME_RE.match(text.strip())
    return match.group(0)[:-1].lower() if match else ""


def url_host(url: str) -> str:
    """The lower-cased host of `url` without port or user info ("" when there is none)."""
    try:
        return (urlsplit(html.unescape(url.strip())).hostname or "").lower()
    except ValueError:
        return ""


def _is_tracking(name: str) -> bool:
    lowered = name.lower()
    return lowered.startswith(_TRACKING_PREFIX) or lowered in _TRACKING_EXACT


@dataclass(frozen=True)
class UrlParts:
    """The pieces of a normalized URL that the matching levels compare."""

    scheme: str
    netloc: str
    path: str
    query: tuple[tuple[str, str], ...]
    segments: tuple[str, ...] = ()

    def render(self) -> str:
        text = f"{self.scheme}://{self.netloc}{self.path}"
        if not self.query:
            return text
        # Decoded pairs joined plainly: the form is only ever compared, never fetched.
        return text + "?" + "&".join(f"{name}={value}" for name, value in self.query)


def url_parts(url: str) -> UrlParts | None:
    """Split and normalize `url`; None when it is not a scheme://host URL."""
    text = url.strip()
    if "&" in text:
        text = html.unescape(text)
    try:
        split = urlsplit(text)
        # Touch the port so a malformed one (":abc") is rejected here, not later.
        _ = split.port
    except ValueError:
        return None
    if not split.scheme or not split.netloc:
        return None
    userinfo, _, hostport = split.netloc.rpartition("@")
    netloc = f"{userinfo}@{hostport.lower()}" if userinfo else hostport.lower()
    path = (unquote(split.path) if "%" in split.path else split.path).rstrip("/")
    query: tuple[tuple[str, str], ...] = ()
    if split.query:
        query = tuple(
            sorted(
                (name, value)
                for name, value in parse_qsl(split.query, keep_blank_values=True)
                if not _is_tracking(name)
            )
        )
    segments = tuple(part for part in path.split("/") if part)
    return UrlParts(split.scheme.lower(), netloc, path, query, segments)


def normalize_url(url: str) -> str:
    """Canonical form for matching.

    Unescapes HTML entities, lower-cases scheme and host (the port stays), decodes the path and
    drops a trailing slash, drops the fragment and tracking parameters (`utm_*`, `ref`,
    `source`) and sorts the remaining query parameters. `www.` and http/https stay distinct:
    they can serve different content. Text that is not a scheme://host URL comes back
    stripped and unescaped, otherwise unchanged.
    """
    return normalized_form(url, url_parts(url))


def normalized_form(url: str, parts: UrlParts | None) -> str:
    """`normalize_url(url)` when `url_parts(url)` is already at hand."""
    return html.unescape(url.strip()) if parts is None else parts.render()
