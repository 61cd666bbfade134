"""What is checked before a session starts: search that cannot work, a folder with nothing in it.

A search provider that cannot answer used to let a whole session run and end, exit code 0,
with "No retrieved source answered this question" and nothing on stderr. It now stops the run
before it starts with a `SettingsError` naming the variable. A documents folder with nothing
to index is not an error (a question may name URLs to fetch), but it is said at the start.
"""

from __future__ import annotations

from engine.config import Settings, SettingsError
from engine.tools.document_scan import scan_folder


def search_setup_problem(settings: Settings) -> str | None:
    """Why the configured search provider cannot work, or None when it can."""
    if settings.resolved_search_provider == "exa" and settings.exa_api_key is None:
        return (
            "SEARCH_PROVIDER=exa needs EXA_API_KEY, which is not set; set EXA_API_KEY, or "
            "choose SEARCH_PROVIDER=local (with DOCUMENTS_PATH) or SEARCH_PROVIDER=none"
        )
    return None


def require_working_search(settings: Settings) -> None:
    """Raise `SettingsError` when the search provider cannot work."""
    problem = search_setup_problem(settings)
    if problem is not None:
        raise SettingsError(problem)


def documents_warning(settings: Settings) -> str | None:
    """A warning when local search has no document it may read, else None."""
    if settings.resolved_search_provider != "local":
        return None
    folder = settings.resolved_documents_path
    if scan_folder(folder, limit=1).files:
        return None
    origin = "DOCUMENTS_PATH" if settings.documents_path is not None else "the sample corpus"
    return (
        f"no documents to search in {folder} ({origin}): it holds no .md, .txt, .html or "
        ".pdf file inside it; the research will find no sources there"
    )
