"""Check that a base URL setting can be connected to at all, and say why not when it cannot.

`http://[::1`, port 99999 or a host with a space used to pass and fail later, deep inside an
HTTP client, with a message that named no setting. These checks run when settings load, so the
error names the variable and the one thing wrong with its value.
"""

from __future__ import annotations

import ipaddress
import re
from urllib.parse import SplitResult, urlsplit

# One label of a host name: letters of any script, digits, hyphens, and the underscores some
# intranet names carry. Anything else (`!`, `/`, `%`…) no resolver accepts.
_HOST_LABEL = re.compile(r"^[\w-]+$")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


_BAD_PORT = "has a port that is not a number from 1 to 65535"
_UNBALANCED = "has an unbalanced [ or ] around an IPv6 address"


def base_url_problem(value: str) -> str | None:
    """Why `value` cannot work as an http(s) base URL, or None when it can."""
    if _CONTROL.search(value):
        return "holds a control character"
    if any(char.isspace() for char in value):
        return "holds a space; a URL has none (encode it as %20 in a path)"
    try:
        parts = urlsplit(value)
    except ValueError:
        return _UNBALANCED
    if parts.scheme not in ("http", "https") or not value.lower().startswith(parts.scheme + "://"):
        return "must be an http:// or https:// URL"
    return _port_problem(parts) or _host_problem(parts)


def _port_problem(parts: SplitResult) -> str | None:
    try:
        port = parts.port
    except ValueError:
        return _BAD_PORT
    return _BAD_PORT if port == 0 else None


def _host_problem(parts: SplitResult) -> str | None:
    host = parts.hostname
    if not host:
        return "has no host name"
    netloc_host = parts.netloc.rsplit("@", 1)[-1]
    if netloc_host.startswith("["):
        try:
            ipaddress.IPv6Address(host.split("%", 1)[0])
        except ValueError:
            return f"has an invalid IPv6 address [{host}]"
        return None
    if "[" in netloc_host or "]" in netloc_host:
        return _UNBALANCED
    labels = host.rstrip(".").split(".")
    if not all(label and _HOST_LABEL.match(label) for label in labels):
        return f"has an invalid host name {host!r}"
    return None
