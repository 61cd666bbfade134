"""Small, pure formatting rules shared by widgets (no Textual, no policy)."""

from __future__ import annotations

from datetime import datetime
from urllib.parse import urlsplit

_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def source_domain(source: str) -> str:
    """The domain a source counts under: a URL's host, else the document key itself."""
    parts = urlsplit(source)
    if parts.scheme in ("http", "https") and parts.hostname:
        host = parts.hostname.lower()
        return host.removeprefix("www.")
    return source.split("#", 1)[0]


def is_web_source(source: str) -> bool:
    """A web page's URL, not a document key."""
    return urlsplit(source).scheme in ("http", "https")


def format_duration(seconds: float | None) -> str:
    if seconds is None:
        return ""
    if seconds < 60:
        return f"{seconds:.1f}s"
    minutes, rest = divmod(int(seconds), 60)
    return f"{minutes}m{rest:02d}s"


def format_running(seconds: float) -> str:
    """Time so far of something still running, in whole seconds ("42s", "3m05s"): it
    changes every second, so a tenth would only flicker."""
    whole = max(0, int(seconds))
    return f"{whole}s" if whole < 60 else format_duration(whole)


def format_clock(seconds: float) -> str:
    """Elapsed time as H:MM:SS or M:SS."""
    total = max(0, int(seconds))
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def _local_time(stamp: str) -> datetime | None:
    """A stored ISO time (the engine writes UTC) as local time, or None if it is not one."""
    try:
        moment = datetime.fromisoformat(stamp)
    except ValueError:
        return None
    return moment.astimezone().replace(tzinfo=None) if moment.tzinfo else moment


def local_stamp(stamp: str) -> str:
    """A stored time in full, in local time: "2025-01-02 10:05"."""
    moment = _local_time(stamp)
    return moment.strftime("%Y-%m-%d %H:%M") if moment else stamp[:16].replace("T", " ")


def compact_stamp(stamp: str, now: datetime) -> str:
    """A stored time in at most 10 columns, as lists of mail say it: the time if it is
    today ("13:40"), the day if this year ("Jan 2"), else the date ("2025-01-02"). `now` is
    local time."""
    moment = _local_time(stamp)
    if moment is None:
        return stamp[:10]
    if moment.date() == now.date():
        return moment.strftime("%H:%M")
    if moment.year == now.year:
        return f"{_MONTHS[moment.month - 1]} {moment.day}"
    return moment.strftime("%Y-%m-%d")


def format_tokens(count: int) -> str:
    if count >= 1_000_000:
        return f"{count / 1_000_000:.1f}M"
    if count >= 10_000:
        return f"{count / 1000:.0f}k"
    if count >= 1000:
        return f"{count / 1000:.1f}k"
    return str(count)


def one_line(text: str, limit: int = 200) -> str:
    """Collapse whitespace so a table cell stays one row; cut long text with an ellipsis."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def counted(number: int, noun: str, plural: str | None = None) -> str:
    """ "1 record", "2 records": a count with its noun in agreement."""
    return f"{number} {noun if number == 1 else plural or noun + 's'}"


def toward(done: int, target: int, noun: str) -> str:
    """ "26 records (need 5)": a count and the target it works toward (never "26/5", which
    reads as a fraction)."""
    return f"{counted(done, noun)} (need {target})"
