"""What is configured and what is missing: the checks that need no network.

Models per role, keys (never shown), pinned model settings, the search provider and its
documents, hosts allowed for fetching, and the data directory. Each missing piece says what it
disables; a line marked as an error means a research session cannot run.
"""

from __future__ import annotations

from pathlib import Path

from engine.config import ROLES, Settings
from engine.data_dir import DataDirError, prepare_data_dir
from engine.doctor.endpoints import OPENAI_DEFAULT_BASE_URL
from engine.doctor.report import Check
from engine.preflight import search_setup_problem

# Skipped documents named one by one, up to this many (then a count of the rest).
MAX_NAMED_SKIPS = 5


def static_checks(settings: Settings) -> tuple[list[Check], bool]:
    """Every check that needs no network, and whether a research session can run."""
    checks = _model_checks(settings)
    key_check = _openai_key_check(settings)
    checks.append(key_check)
    checks.extend(_pin_checks(settings))
    search_checks, search_works = _search_checks(settings)
    checks.extend(search_checks)
    if settings.fetch_allowed_hosts:
        allowed = ", ".join(settings.fetch_allowed_hosts)
        checks.append(Check("FETCH_ALLOWED_HOSTS", "info", f"private hosts allowed: {allowed}"))
    data_dir_check = _data_dir_check(settings)
    checks.append(data_dir_check)
    can_run = key_check.status != "error" and search_works and data_dir_check.status != "error"
    return checks, can_run


def _model_checks(settings: Settings) -> list[Check]:
    """One line per role: its model and where it runs, or the offline model."""
    checks: list[Check] = []
    for role in ROLES:
        resolved = settings.role_model(role)
        if resolved.offline:
            checks.append(
                Check(
                    f"{role} model",
                    "info",
                    "offline extractive model (quotes retrieved sentences; no LLM)",
                )
            )
        else:
            where = _without_userinfo(resolved.base_url or OPENAI_DEFAULT_BASE_URL)
            # Configured is not working: only a probe may mark an endpoint ok.
            checks.append(Check(f"{role} model", "info", f"{resolved.model} at {where}"))
    return checks


def _openai_key_check(settings: Settings) -> Check:
    """Whether the OpenAI key is set; an error when a model needs api.openai.com without it."""
    uses_openai = any(
        not settings.role_model(role).offline and settings.role_model(role).base_url is None
        for role in ROLES
    )
    if settings.openai_api_key is not None:
        return Check("OPENAI_API_KEY", "ok", "set (hidden)")
    if uses_openai:
        return Check("OPENAI_API_KEY", "error", "missing, but a model uses api.openai.com")
    return Check(
        "OPENAI_API_KEY",
        "missing",
        "not set",
        disables="LLM-written plans and reports (the offline extractive model is used)",
    )


def _pin_checks(settings: Settings) -> list[Check]:
    """The model settings pinned instead of found by probing, when a model is in use."""
    pins = [
        f"{name}={value}"
        for name, value in (
            ("MODEL_TOOL_CALLING", settings.model_tool_calling),
            ("MODEL_STRUCTURED_OUTPUT", settings.model_structured_output),
        )
        if value != "auto"
    ]
    if pins and not settings.offline:
        return [Check("model profile", "info", "pinned: " + ", ".join(pins))]
    return []


def _search_checks(settings: Settings) -> tuple[list[Check], bool]:
    """The Exa key and the search provider's lines, and whether search is set up to run."""
    provider = settings.resolved_search_provider
    if settings.exa_api_key is not None:
        checks = [Check("EXA_API_KEY", "ok", "set (hidden)")]
    else:
        checks = [Check("EXA_API_KEY", "missing", "not set", disables="web search through Exa")]
    search_problem = search_setup_problem(settings)
    if search_problem is not None:
        return [*checks, Check("search provider", "error", search_problem)], False
    if provider == "none":
        checks.append(
            Check(
                "search provider",
                "info",
                "none: researchers only fetch URLs named in the question",
                disables="searching",
            )
        )
    elif provider == "local":
        folder = settings.resolved_documents_path
        label = "DOCUMENTS_PATH" if settings.documents_path else "bundled sample corpus"
        document_checks, has_documents = _document_checks(folder, label)
        return [*checks, *document_checks], has_documents
    else:
        checks.append(Check("search provider", "ok", "exa"))
    return checks, True


def _document_checks(folder: Path, label: str) -> tuple[list[Check], bool]:
    """The local provider's line, then one warning per document that will be skipped."""
    from engine.terminal_text import shown_name
    from engine.tools.document_scan import scan_folder

    scan = scan_folder(folder) if folder.is_dir() else None
    count = len(scan.files) if scan else 0
    if count == 0:
        shown = shown_name(str(folder))
        checks = [Check("search provider", "error", f"local: no documents in {shown} ({label})")]
    else:
        shown = shown_name(str(folder))
        checks = [Check("search provider", "ok", f"local: {count} documents in {shown} ({label})")]
    skips = scan.warnings if scan else []
    checks.extend(Check("documents", "warn", skip) for skip in skips[:MAX_NAMED_SKIPS])
    if len(skips) > MAX_NAMED_SKIPS:
        checks.append(Check("documents", "warn", f"and {len(skips) - MAX_NAMED_SKIPS} more"))
    return checks, count > 0


def _data_dir_check(settings: Settings) -> Check:
    """Whether the data directory exists, or can be made, and is private."""
    try:
        prepare_data_dir(settings)
    except DataDirError as exc:
        return Check("DATA_DIR", "error", str(exc).removeprefix("DATA_DIR="))
    return Check("data directory", "ok", f"{settings.data_dir} (sessions, reports; private)")


def _without_userinfo(url: str) -> str:
    """The URL without a `user:password@` part, which may hold a secret."""
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url
    return urlunsplit(parts._replace(netloc=parts.netloc.rsplit("@", 1)[1]))
