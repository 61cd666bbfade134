"""URL safety: which URLs the fetcher may request, and which addresses it may connect to.

Two checks guard every hop of a fetch (the first request and each redirect):

1. `validate_url` looks at the URL alone: http/https only, no userinfo, a well-formed host
   (IDN names are converted to their ASCII form first, so look-alike spellings of
   `localhost` are caught), no local-only names (`localhost`, `*.localhost`, `*.local`,
   `*.internal`), no numeric host shorthands (`2130706433`, `0x7f.1`, `127.1`) and no
   literal address outside the public internet.
2. `resolve_checked` resolves the host name itself and refuses it if any address it resolves
   to is not public. The fetcher then connects to the address returned here, so a DNS answer
   cannot change between the check and the connection.

`FETCH_ALLOWED_HOSTS` (host or host:port entries) is the only way around these rules: an entry
may name the URL's host (`intranet.example`, `intranet.example:8080`) or the address it
resolves to (`127.0.0.1:8765`), which is how the offline tests reach their local servers.

Name resolution is pluggable (`use_resolver`, or the `resolver=` argument of the fetcher) so
tests can map invented host names such as `site-a.test` to 127.0.0.1 while every other name
resolves for real.
"""

from __future__ import annotations

import asyncio
import fnmatch
import ipaddress
import re
import socket
import unicodedata
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from urllib.parse import SplitResult, urlsplit, urlunsplit

import idna

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
Resolver = Callable[[str, int], Awaitable[Sequence[str]]]

MAX_URL_LENGTH = 4096
_LOCAL_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback"})
_LOCAL_SUFFIXES = (".localhost", ".local", ".internal", ".localdomain")
_NUMERIC_LABEL = re.compile(r"^(?:0x[0-9a-f]*|[0-9]+)$")
_CANONICAL_OCTET = re.compile(r"^(?:0|[1-9][0-9]{0,2})$")
_HOST_LABEL = re.compile(r"^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$")
_FORBIDDEN_URL_CHARS = re.compile(r"[\x00-\x20\x7f\\]")


class UnsafeURLError(ValueError):
    """The URL may not be fetched. `reason` is short, generic and safe to show anyone."""

    prefix = "blocked"

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(f"{self.prefix}: {reason}")


class InvalidURLError(UnsafeURLError):
    """The text is not a usable http(s) URL at all."""

    prefix = "invalid URL"


class HostResolutionError(OSError):
    """The host name did not resolve to any address."""


@dataclass(frozen=True)
class ValidatedURL:
    """A URL that passed `validate_url`, split into the parts the fetcher needs."""

    url: str
    scheme: str
    host: str
    port: int
    target: str
    literal_ip: IPAddress | None
    allowed_by_name: bool

    @property
    def host_header(self) -> str:
        """The Host header: the host, bracketed if IPv6, with the port unless it is default."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        default = 443 if self.scheme == "https" else 80
        return host if self.port == default else f"{host}:{self.port}"


def _normalize_allowed(allowed_hosts: Sequence[str]) -> frozenset[str]:
    return frozenset(entry.strip().lower().rstrip(".") for entry in allowed_hosts if entry)


def _matches_allowed(host: str, port: int, allowed: frozenset[str]) -> bool:
    bracketed = f"[{host}]" if ":" in host else host
    return bool({host, bracketed, f"{bracketed}:{port}"} & allowed)


def address_block_reason(ip: IPAddress) -> str | None:
    """Why an address may not be contacted, or None when it is a public address."""
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return "IPv4-mapped IPv6 address"
        embedded = ip.sixtofour or (ip.teredo[1] if ip.teredo else None)
        if embedded is not None and address_block_reason(embedded) is not None:
            return "private address"
    checks = (
        (ip.is_unspecified, "unspecified address"),
        (ip.is_loopback, "loopback address"),
        (ip.is_link_local, "link-local address"),
        (ip.is_multicast, "multicast address"),
        (ip.is_reserved, "reserved address"),
        (ip.is_private, "private address"),
        (not ip.is_global, "private address"),
    )
    for blocked, reason in checks:
        if blocked:
            return reason
    return None


def _ascii_host(raw_host: str) -> str:
    """The host in lowercase ASCII (IDNA/UTS #46), without a trailing dot."""
    host = raw_host
    if not host.isascii():
        host = unicodedata.normalize("NFKC", host)
        try:
            host = idna.encode(host, uts46=True, transitional=False).decode("ascii")
        except (idna.IDNAError, UnicodeError):
            raise InvalidURLError("invalid host name") from None
    host = host.lower()
    return host[:-1] if host.endswith(".") else host


def _parse_ipv4_literal(host: str) -> ipaddress.IPv4Address | None:
    """A canonical dotted quad as an address; any other all-numeric host form is refused."""
    labels = host.split(".")
    if not _NUMERIC_LABEL.match(labels[-1]):
        return None
    canonical = len(labels) == 4 and all(
        _CANONICAL_OCTET.match(label) and int(label) <= 255 for label in labels
    )
    if not canonical:
        # Shorthands such as 2130706433, 0x7f.1, 127.1 or 0177.0.0.1 reach addresses that a
        # naive check would not recognise; browsers and libc accept them, so refuse them all.
        raise UnsafeURLError("numeric host form")
    return ipaddress.IPv4Address(host)


def validate_url(url: str, *, allowed_hosts: Sequence[str] = ()) -> ValidatedURL:
    """Check a URL against the fetch rules, returning its parts or raising `UnsafeURLError`."""
    parts, explicit_port = _split(url)
    scheme, raw_host, port = _origin(parts, explicit_port)
    allowed = _normalize_allowed(allowed_hosts)
    host, literal_ip = _host(parts.netloc, raw_host)
    literal_ip, allowed_by_name = _screened(host, port, allowed, literal_ip)
    netloc = f"[{host}]" if ":" in host else host
    if port != _default_port(scheme):
        netloc = f"{netloc}:{port}"
    path = parts.path or "/"
    normalized = urlunsplit((scheme, netloc, path, parts.query, ""))
    target = path + (f"?{parts.query}" if parts.query else "")
    return ValidatedURL(
        url=normalized,
        scheme=scheme,
        host=host,
        port=port,
        target=target,
        literal_ip=literal_ip,
        allowed_by_name=allowed_by_name,
    )


def _default_port(scheme: str) -> int:
    return 443 if scheme == "https" else 80


def _split(url: str) -> tuple[SplitResult, int | None]:
    """The URL's parts and explicit port; refuses text no URL parser should be given."""
    if not isinstance(url, str) or not url.strip():
        raise InvalidURLError("empty URL")
    url = url.strip()
    if len(url) > MAX_URL_LENGTH:
        raise InvalidURLError("URL too long")
    if _FORBIDDEN_URL_CHARS.search(url):
        raise InvalidURLError("URL contains spaces, control characters or backslashes")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise InvalidURLError("malformed host or port") from None
    return parts, port


def _origin(parts: SplitResult, explicit_port: int | None) -> tuple[str, str, int]:
    """Scheme (http or https), host as written, and port, of a URL without credentials."""
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https"):
        raise UnsafeURLError("only http and https URLs can be fetched")
    if "@" in parts.netloc:
        raise UnsafeURLError("credentials in URL")
    raw_host = parts.hostname
    if not raw_host:
        raise InvalidURLError("missing host")
    if explicit_port == 0:
        raise InvalidURLError("malformed host or port")
    return scheme, raw_host, explicit_port or _default_port(scheme)


def _host(netloc: str, raw_host: str) -> tuple[str, IPAddress | None]:
    """The host in its normal form, with its address when it is a bracketed IPv6 literal."""
    if netloc.startswith("["):
        if "%" in raw_host:
            raise InvalidURLError("invalid host name")
        try:
            literal_ip = ipaddress.IPv6Address(raw_host)
        except ValueError:
            raise InvalidURLError("invalid host name") from None
        return str(literal_ip), literal_ip
    host = _ascii_host(raw_host)
    labels = host.split(".")
    if not host or len(host) > 253 or not all(_HOST_LABEL.match(x) for x in labels):
        raise InvalidURLError("invalid host name")
    return host, None


def _screened(
    host: str, port: int, allowed: frozenset[str], literal_ip: IPAddress | None
) -> tuple[IPAddress | None, bool]:
    """The host's literal address, if it is one, and whether FETCH_ALLOWED_HOSTS names it.

    A host that is not allowed by name is refused when it is a local-only name, a numeric
    shorthand or a literal address outside the public internet.
    """
    if _matches_allowed(host, port, allowed):
        if literal_ip is None:
            try:
                literal_ip = ipaddress.ip_address(host)
            except ValueError:
                literal_ip = None  # an allowed host name: resolved later
        return literal_ip, True
    if literal_ip is None:
        if host in _LOCAL_NAMES or host.endswith(_LOCAL_SUFFIXES):
            raise UnsafeURLError("local host name")
        literal_ip = _parse_ipv4_literal(host)
    if literal_ip is not None:
        reason = address_block_reason(literal_ip)
        if reason is not None:
            raise UnsafeURLError(reason)
    return literal_ip, False


# ---- name resolution ---------------------------------------------------------------------


async def system_resolver(host: str, port: int) -> list[str]:
    """Resolve with the operating system's resolver (without blocking the event loop)."""
    loop = asyncio.get_running_loop()
    try:
        infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise HostResolutionError("host did not resolve") from exc
    addresses: list[str] = []
    for _family, _type, _proto, _canon, sockaddr in infos:
        address = str(sockaddr[0]).split("%", 1)[0]
        if address not in addresses:
            addresses.append(address)
    return addresses


def mapping_resolver(mapping: Mapping[str, str], fallback: Resolver = system_resolver) -> Resolver:
    """A resolver answering from `mapping` (keys may be patterns such as `*.test`)."""

    async def resolve(host: str, port: int) -> Sequence[str]:
        for pattern, address in mapping.items():
            if fnmatch.fnmatchcase(host, pattern.lower()):
                return [address]
        return await fallback(host, port)

    return resolve


_active_resolver: Resolver = system_resolver


def current_resolver() -> Resolver:
    """The resolver the fetcher uses when none is passed explicitly."""
    return _active_resolver


@contextmanager
def use_resolver(resolver: Resolver) -> Iterator[None]:
    """Make `resolver` the process-wide default for the duration of the block."""
    global _active_resolver
    previous = _active_resolver
    _active_resolver = resolver
    try:
        yield
    finally:
        _active_resolver = previous


async def resolve_checked(
    target: ValidatedURL,
    *,
    allowed_hosts: Sequence[str] = (),
    resolver: Resolver | None = None,
) -> str:
    """The address to connect to for `target`, after checking every address its host has.

    Raises `UnsafeURLError` when any resolved address is not public (and not allowed), and
    `HostResolutionError` when the name does not resolve.
    """
    if target.literal_ip is not None:
        return str(target.literal_ip)
    allowed = _normalize_allowed(allowed_hosts)
    addresses = await (resolver or _active_resolver)(target.host, target.port)
    if not addresses:
        raise HostResolutionError("host did not resolve")
    for address in addresses:
        try:
            ip = ipaddress.ip_address(address)
        except ValueError:
            raise HostResolutionError("resolver returned an invalid address") from None
        if target.allowed_by_name or _matches_allowed(str(ip), target.port, allowed):
            continue
        reason = address_block_reason(ip)
        if reason is not None:
            raise UnsafeURLError(reason)
    return str(addresses[0])


__all__ = [
    "HostResolutionError",
    "InvalidURLError",
    "Resolver",
    "UnsafeURLError",
    "ValidatedURL",
    "address_block_reason",
    "current_resolver",
    "mapping_resolver",
    "resolve_checked",
    "system_resolver",
    "use_resolver",
    "validate_url",
]
