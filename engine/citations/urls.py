"""URL normalization used to match a cited URL against the URLs a tool really returned.

Normalization only decides *whether* two spellings name the same page; the registry always
hands back the URL exactly as the tool returned it.
"""

from __future__ import annotations

import html
import re
from typing import NamedTuple
from urllib.parse import parse_qsl, unquote, urlsplit

# Query parameters that only say how someone arrived at a page, never which page it is.
_TRACKING_EXACT = frozenset({"ref", "source"})
_TRACKING_PREFIX = "utm_"

# A lower-case http(s) URL that `urlsplit` would take apart without any special case: no user
# info, port or IPv6 brackets in the host, no tab or line break (which it deletes) anywhere.
# The groups are its scheme, host, path and query; the fragment is dropped, as `urlsplit` does.
_PLAIN_SPLIT_RE = re.compile(
    r"(https?)://([^/?#@:\[\]\t\r\n]*)((?:/[^?#\t\r\n]*)?)(?:\?([^#\t\r\n]*))?(?:#[^\t\r\n]*)?"
)

# RFC 3986 scheme followed by a colon and more address ("Title: text" is not a URL).
_SCHEME_RE = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:(?=\S)")


def has_scheme(text: str) -> bool:
    """True when `text` starts with a URL scheme (`https:`, `javascript:`, `data:` ...)."""
    return bool(_SCHEME_RE.match(text.strip()))


def url_scheme(text: str) -> str:
    """The lower-cased scheme of `text`, or "" when it has none."""
    match = _SCHEME_RE.match(text.strip())
    return match.group(0)[:-1].lower() if match else ""


def _is_tracking(name: str) -> bool:
    lowered = name.lower()
    return lowered.startswith(_TRACKING_PREFIX) or lowered in _TRACKING_EXACT


class UrlParts(NamedTuple):
    """The pieces of a normalized URL that the matching levels compare.

    A named tuple (not a frozen dataclass): a cited URL is split on every lookup that misses,
    and a tuple is several times cheaper to build.
    """

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
    split = _split(text)
    if split is None:
        return None
    scheme, written_netloc, written_path, written_query = split
    if not scheme or not written_netloc:
        return None
    userinfo, _, hostport = written_netloc.rpartition("@")
    netloc = f"{userinfo}@{hostport.lower()}" if userinfo else hostport.lower()
    path = (unquote(written_path) if "%" in written_path else written_path).rstrip("/")
    query: tuple[tuple[str, str], ...] = ()
    if written_query:
        query = tuple(
            sorted(
                (name, value)
                for name, value in parse_qsl(written_query, keep_blank_values=True)
                if not _is_tracking(name)
            )
        )
    segments = tuple(filter(None, path.split("/")))  # the non-empty parts
    return UrlParts(scheme.lower(), netloc, path, query, segments)


def _split(text: str) -> tuple[str, str, str, str] | None:
    """Scheme, netloc, path and query of `text` as `urlsplit` reads them; None if malformed.

    A plain http(s) URL is split by one match: `urlsplit` costs several times more, and its
    own cache (128 URLs) stops helping once a report cites more URLs than that.
    """
    plain = _PLAIN_SPLIT_RE.fullmatch(text)
    if plain is not None and plain.group(2).isascii():
        scheme, netloc, path, query = plain.groups()
        return scheme, netloc, path, query or ""
    try:
        split = urlsplit(text)
        # Touch the port so a malformed one (":abc") is rejected here, not later.
        _ = split.port
    except ValueError:
        return None
    return split.scheme, split.netloc, split.path, split.query


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
