"""What a model server can do: context window, native tool calling, structured-output method.

A profile comes from settings when they say (`MODEL_TOOL_CALLING`, `MODEL_STRUCTURED_OUTPUT`,
`MODEL_MAX_INPUT_TOKENS`), else from what `doctor` or the first call detected for that
endpoint (cached under the data directory), else from the provider's known defaults.
OpenAI itself needs no probing; a local server always gets probed once, because the same
wire protocol hides very different behaviour (llama-cpp-python drops tools without
`tool_choice`, rejects `json_schema`, and does not render tool results).
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, Literal

from engine.config import Role, RoleModel, Settings
from engine.data_dir import private_dir, write_private_text

ToolCalling = Literal["native", "prompted"]
StructuredMethod = Literal["json_schema", "json_object", "tool", "text"]
STRUCTURED_METHODS: tuple[StructuredMethod, ...] = ("json_schema", "json_object", "tool", "text")
PROFILE_CACHE_FILE = "model_profiles.json"
JUDGE_KEY = "support_judge"
ASSUMED = "assumed"

# Output caps per role, in tokens, for a large context window. The writer needs room for a
# long report; everything else is a short decision, a plan or a note.
ROLE_OUTPUT_TOKENS: dict[Role, int] = {
    "orchestrator": 1024,
    "planner": 1536,
    "researcher": 1024,
    "writer": 4096,
}
# No single reply may take more than this share of the window: the prompt needs the rest.
MAX_OUTPUT_SHARE = 0.25
MIN_OUTPUT_TOKENS = 128


@dataclass(frozen=True)
class ModelProfile:
    """The capabilities the engine shapes its requests by."""

    context_window: int
    tool_calling: ToolCalling = "native"
    structured_output: StructuredMethod = "json_schema"
    # Where the capabilities came from: settings, detected, known (a provider default), or
    # assumed (probes the server did not answer: used for now, never remembered).
    source: str = "known"
    # The server ends a running reply when another request arrives (llama-cpp-python does):
    # learned from a cut, remembered, so later sessions send one request at a time from the
    # start instead of losing their first parallel replies to it.
    one_at_a_time: bool = False

    @property
    def conclusive(self) -> bool:
        """Whether this is what the model can do, as opposed to a stand-in for an outage."""
        return self.source != ASSUMED

    def output_cap(self, role: Role) -> int:
        """The `max_tokens` for one reply of `role`, shrunk to fit small windows."""
        share = int(self.context_window * MAX_OUTPUT_SHARE)
        return max(MIN_OUTPUT_TOKENS, min(ROLE_OUTPUT_TOKENS[role], share))

    def with_structured(self, method: StructuredMethod) -> ModelProfile:
        # A refusal is an answer about the method; an assumed profile stays assumed.
        return replace(
            self, structured_output=method, source="detected" if self.conclusive else ASSUMED
        )


def endpoint_label(base_url: str | None) -> str:
    """The host:port a message may name for an endpoint (no scheme, path, user or key)."""
    if not base_url:
        return "api.openai.com"
    from urllib.parse import urlsplit

    parts = urlsplit(base_url)
    host = parts.hostname or "?"
    return f"{host}:{parts.port}" if parts.port else host


def cache_key(base_url: str | None, model: str) -> str:
    return f"{endpoint_label(base_url)}|{model}"


def is_openai(base_url: str | None) -> bool:
    return base_url is None or endpoint_label(base_url) == "api.openai.com"


def _cache_path(settings: Settings) -> Path:
    return settings.data_dir / PROFILE_CACHE_FILE


def load_cached(settings: Settings) -> dict[str, dict[str, Any]]:
    try:
        data = json.loads(_cache_path(settings).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _entry(cache: dict[str, Any], key: str) -> dict[str, Any]:
    entry = cache.get(key)
    return entry if isinstance(entry, dict) else {}


def store_detected(settings: Settings, key: str, profile: ModelProfile) -> None:
    """Remember what was detected for an endpoint, so later runs skip the probe; an assumed
    profile (probes got no answer) is not stored."""
    if not profile.conclusive:
        return
    cache = load_cached(settings)
    judge = _entry(cache, key).get(JUDGE_KEY)
    # How the model judges support is the model's, not the server's: a new probe keeps it.
    kept = {JUDGE_KEY: judge} if judge is not None else {}
    cache[key] = {**asdict(profile), "detected_at": time.time(), **kept}
    _write_cache(settings, cache)


def _write_cache(settings: Settings, cache: dict[str, dict[str, Any]]) -> None:
    path = _cache_path(settings)
    try:
        private_dir(path.parent)
        temporary = path.with_suffix(".tmp")
        write_private_text(temporary, json.dumps(cache, indent=2, sort_keys=True))
        os.replace(temporary, path)
    except OSError:
        pass  # A cache that cannot be written costs one probe per run, nothing more.


def store_judge_calibration(settings: Settings, key: str, calibration: dict[str, Any]) -> None:
    """Remember how an endpoint's model did as a support judge (engine.grounding.calibration)."""
    cache = load_cached(settings)
    cache[key] = {**_entry(cache, key), JUDGE_KEY: {**calibration, "calibrated_at": time.time()}}
    _write_cache(settings, cache)


def cached_judge_calibration(settings: Settings, key: str) -> dict[str, Any] | None:
    """What `store_judge_calibration` remembered for an endpoint, if anything."""
    found = _entry(load_cached(settings), key).get(JUDGE_KEY)
    return found if isinstance(found, dict) else None


def store_one_at_a_time(settings: Settings, key: str) -> None:
    """Remember that an endpoint serves one request at a time, and nothing else about it
    (what the settings pin is never written down as detected)."""
    cache = load_cached(settings)
    cache[key] = {**_entry(cache, key), "one_at_a_time": True}
    _write_cache(settings, cache)


def with_pinned(profile: ModelProfile, settings: Settings) -> ModelProfile:
    """`profile` with whatever the settings pin (a setting always wins over a probe)."""
    tools: Any = settings.model_tool_calling
    structured: Any = settings.model_structured_output
    if tools != "auto":
        profile = replace(profile, tool_calling=tools)
    if structured != "auto":
        profile = replace(profile, structured_output=structured)
    return profile


def configured_profile(
    settings: Settings, role: Role, role_model: RoleModel | None = None
) -> ModelProfile | None:
    """The profile when settings or the cache decide it; None when the server needs probing."""
    role_model = role_model or settings.role_model(role)
    window = settings.model_max_input_tokens
    cached = load_cached(settings).get(cache_key(role_model.base_url, role_model.model))
    tools: Any = settings.model_tool_calling
    structured: Any = settings.model_structured_output
    if tools == "auto" and cached:
        tools = cached.get("tool_calling", "auto")
    if structured == "auto" and cached:
        structured = cached.get("structured_output", "auto")
    if is_openai(role_model.base_url):
        tools = "native" if tools == "auto" else tools
        structured = "json_schema" if structured == "auto" else structured
    if tools == "auto" or structured == "auto":
        return None
    explicit = settings.model_tool_calling != "auto" and settings.model_structured_output != "auto"
    source = "settings" if explicit else ("detected" if cached else "known")
    one_at_a_time = bool(cached and cached.get("one_at_a_time"))
    return ModelProfile(window, tools, structured, source, one_at_a_time)
