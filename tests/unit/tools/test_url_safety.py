"""Every SSRF rule of validate_url and resolve_checked."""

from __future__ import annotations

import pytest

from engine.tools.url_safety import (
    HostResolutionError,
    InvalidURLError,
    UnsafeURLError,
    mapping_resolver,
    resolve_checked,
    validate_url,
)


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("http://127.0.0.1/", "loopback address"),
        ("http://127.255.0.9:8080/x", "loopback address"),
        ("http://10.0.0.1/", "private address"),
        ("http://172.16.5.4/", "private address"),
        ("http://192.168.1.1/admin", "private address"),
        ("http://100.64.0.1/", "private address"),  # carrier-grade NAT: not global
        ("http://169.254.169.254/latest/meta-data/", "link-local address"),
        ("http://224.0.0.1/", "multicast address"),
        ("http://240.0.0.1/", "reserved address"),
        ("http://0.0.0.0/", "unspecified address"),
        ("http://[::1]/", "loopback address"),
        ("http://[::]/", "unspecified address"),
        ("http://[fe80::1]/", "link-local address"),
        ("http://[fc00::1]/", "private address"),
        ("http://[ff02::1]/", "multicast address"),
        ("http://[::ffff:127.0.0.1]/", "IPv4-mapped IPv6 address"),
        ("http://[::ffff:8.8.8.8]/", "IPv4-mapped IPv6 address"),
        ("http://[2002:7f00:1::]/", "private address"),  # 6to4 wrapping 127.0.0.1
        ("http://2130706433/", "numeric host form"),
        ("http://0x7f.1/", "numeric host form"),
        ("http://127.1/", "numeric host form"),
        ("http://0177.0.0.1/", "numeric host form"),
        ("http://0x7f000001/", "numeric host form"),
        ("http://1.2.3.4.5/", "numeric host form"),
        ("http://localhost/", "local host name"),
        ("http://LOCALHOST:8080/", "local host name"),
        ("http://localhost./", "local host name"),
        ("http://api.localhost/", "local host name"),
        ("http://printer.local/", "local host name"),
        ("http://metadata.google.internal/", "local host name"),
        ("http://ｌｏｃａｌｈｏｓｔ/", "local host name"),  # full-width letters, NFKC → localhost
        ("http://127。0。0。1/", "loopback address"),  # ideographic full stops
        ("http://user:pass@example.com/", "credentials in URL"),
        ("http://user@example.com/", "credentials in URL"),
        ("ftp://example.com/file", "only http and https URLs can be fetched"),
        ("file:///etc/passwd", "only http and https URLs can be fetched"),
        ("gopher://example.com/", "only http and https URLs can be fetched"),
        ("javascript:alert(1)", "only http and https URLs can be fetched"),
    ],
)
def test_refused_urls_name_their_reason(url: str, reason: str) -> None:
    with pytest.raises(UnsafeURLError) as caught:
        validate_url(url)
    assert caught.value.reason == reason
    assert str(caught.value) == f"blocked: {reason}" or isinstance(caught.value, InvalidURLError)


@pytest.mark.parametrize(
    "url",
    [
        "",
        "   ",
        "not a url",
        "http://",
        "http:///path",
        "http://exa mple.com/",
        "http://example.com:99999/",
        "http://example.com:0/",
        "http://example.com:port/",
        "http://exa\\mple.com/",
        "http://example..com/",
        "http://-bad-.com/",
        "http://[::1/",
        "http://[fe80::1%25eth0]/",
        "http://" + "a" * 64 + ".com/",
        "http://example.com/" + "a" * 5000,
    ],
)
def test_malformed_urls_are_invalid(url: str) -> None:
    with pytest.raises(InvalidURLError) as caught:
        validate_url(url)
    assert str(caught.value).startswith("invalid URL: ")


def test_invalid_idn_is_refused() -> None:
    with pytest.raises(InvalidURLError):
        validate_url("http://a\u200d\u0301b.example/")  # joiner + combining mark: not IDNA


@pytest.mark.parametrize(
    ("url", "normalized", "host", "port"),
    [
        ("https://Example.COM", "https://example.com/", "example.com", 443),
        (
            "http://example.com:8080/a?b=1#frag",
            "http://example.com:8080/a?b=1",
            "example.com",
            8080,
        ),
        (
            "https://bücher.example/straße",
            "https://xn--bcher-kva.example/straße",
            "xn--bcher-kva.example",
            443,
        ),
        ("http://8.8.8.8/dns", "http://8.8.8.8/dns", "8.8.8.8", 80),
        (
            "http://[2606:4700:4700::1111]/",
            "http://[2606:4700:4700::1111]/",
            "2606:4700:4700::1111",
            80,
        ),
        ("  https://example.org/page  ", "https://example.org/page", "example.org", 443),
    ],
)
def test_public_urls_pass_and_are_normalized(
    url: str, normalized: str, host: str, port: int
) -> None:
    checked = validate_url(url)
    assert checked.url == normalized
    assert checked.host == host
    assert checked.port == port


def test_idn_host_header_uses_ascii_form() -> None:
    checked = validate_url("http://bücher.example:8080/")
    assert checked.host_header == "xn--bcher-kva.example:8080"
    assert checked.target == "/"


@pytest.mark.parametrize(
    ("url", "allowed"),
    [
        ("http://127.0.0.1:8765/page", ["127.0.0.1:8765"]),
        ("http://127.0.0.1:8765/page", ["127.0.0.1"]),
        ("http://intranet.local/wiki", ["intranet.local"]),
        ("http://localhost:3000/", ["LOCALHOST:3000"]),
        ("http://[::1]:9000/", ["[::1]:9000"]),
    ],
)
def test_allowed_hosts_are_the_only_way_around(url: str, allowed: list[str]) -> None:
    with pytest.raises(UnsafeURLError):
        validate_url(url)
    assert validate_url(url, allowed_hosts=allowed).allowed_by_name


def test_allowed_host_with_other_port_still_refused() -> None:
    with pytest.raises(UnsafeURLError):
        validate_url("http://127.0.0.1:9999/", allowed_hosts=["127.0.0.1:8765"])


def _resolver(*addresses: str):
    async def resolve(host: str, port: int) -> list[str]:
        return list(addresses)

    return resolve


async def test_name_resolving_to_private_address_is_refused() -> None:
    target = validate_url("http://innocent.example/")
    with pytest.raises(UnsafeURLError) as caught:
        await resolve_checked(target, resolver=_resolver("10.1.2.3"))
    assert caught.value.reason == "private address"


async def test_any_private_address_among_several_refuses_the_host() -> None:
    target = validate_url("http://mixed.example/")
    with pytest.raises(UnsafeURLError):
        await resolve_checked(target, resolver=_resolver("93.184.216.34", "127.0.0.1"))


async def test_resolved_ipv4_mapped_address_is_refused() -> None:
    target = validate_url("http://mapped.example/")
    with pytest.raises(UnsafeURLError) as caught:
        await resolve_checked(target, resolver=_resolver("::ffff:10.0.0.1"))
    assert caught.value.reason == "IPv4-mapped IPv6 address"


async def test_public_resolution_returns_the_address_to_connect_to() -> None:
    target = validate_url("http://public.example/")
    address = await resolve_checked(target, resolver=_resolver("93.184.216.34", "2606:2800::1"))
    assert address == "93.184.216.34"


async def test_resolved_address_can_be_allowed_with_its_port() -> None:
    target = validate_url("http://site-a.test:8765/")
    resolver = mapping_resolver({"*.test": "127.0.0.1"}, fallback=_resolver())
    with pytest.raises(UnsafeURLError):
        await resolve_checked(target, resolver=resolver)
    address = await resolve_checked(target, allowed_hosts=["127.0.0.1:8765"], resolver=resolver)
    assert address == "127.0.0.1"


async def test_unresolvable_host_raises_resolution_error() -> None:
    target = validate_url("http://nowhere.example/")
    with pytest.raises(HostResolutionError):
        await resolve_checked(target, resolver=_resolver())


async def test_literal_public_ip_needs_no_resolution() -> None:
    async def never(host: str, port: int) -> list[str]:
        raise AssertionError("must not resolve a literal address")

    assert await resolve_checked(validate_url("http://8.8.4.4/"), resolver=never) == "8.8.4.4"
