"""The Settings model: every knob of the engine, validated, with the defaults it resolves.

Field names are the environment variable names, lowercased (engine.config.loading reads them).
A value is checked where it is declared: bounds, URLs, lists written as comma-separated text.
Secrets are `SecretStr`, so they never appear in a `repr`, a log line or an event.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from platformdirs import user_data_dir
from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator

from engine.config.base_url import base_url_problem

OFFLINE_MODEL = "offline"
DEFAULT_ONLINE_MODEL = "gpt-4.1-mini"
PROJECT_ROOT = Path(__file__).resolve().parents[2]
SAMPLE_CORPUS = PROJECT_ROOT / "docs" / "samples"

Role = Literal["orchestrator", "researcher", "planner", "writer"]
ROLES: tuple[Role, ...] = ("orchestrator", "researcher", "planner", "writer")
SearchProvider = Literal["exa", "local", "none"]
ResearchMode = Literal["auto", "quick", "deep"]
ToolCallingSetting = Literal["auto", "native", "prompted"]
StructuredOutputSetting = Literal["auto", "json_schema", "json_object", "tool", "text"]
GroundingMode = Literal["strict", "mark", "off"]
GroundingJudgeSetting = Literal["auto", "on", "off"]


class SettingsError(ValueError):
    """A setting has a bad value; the message names the variable and what is allowed."""


@dataclass(frozen=True)
class RoleModel:
    """The model a graph role talks to, after fallbacks are applied."""

    role: Role
    model: str
    base_url: str | None

    @property
    def offline(self) -> bool:
        return self.model == OFFLINE_MODEL


def _count(default: int, *, minimum: int = 1, maximum: int = 10_000, **kw: Any) -> Any:
    return Field(default=default, ge=minimum, le=maximum, **kw)


class Settings(BaseModel):
    """Every knob of the engine. Field names are the environment variable names, lowercased."""

    # No setting is meant to be infinite or not a number: a NaN price or cap compares false with
    # everything, so a budget check would silently never trip.
    model_config = ConfigDict(
        frozen=True, extra="ignore", populate_by_name=True, allow_inf_nan=False
    )

    # Models: each role falls back to the orchestrator's model and base URL.
    orchestrator_model: str | None = None
    orchestrator_base_url: str | None = None
    researcher_model: str | None = None
    researcher_base_url: str | None = None
    planner_model: str | None = None
    planner_base_url: str | None = None
    writer_model: str | None = None
    writer_base_url: str | None = None
    openai_api_key: SecretStr | None = None
    llm_timeout_seconds: float = Field(default=120.0, gt=0, le=3600)
    llm_max_retries: int = _count(10, minimum=0, maximum=10)
    model_max_input_tokens: int = _count(128_000, minimum=1_000, maximum=10_000_000)
    # What the model server supports; "auto" probes it once and remembers the answer.
    model_tool_calling: ToolCallingSetting = "auto"
    model_structured_output: StructuredOutputSetting = "auto"
    # A ceiling on every reply's length, below the per-role caps (0: the role caps alone).
    model_max_output_tokens: int = _count(0, minimum=0, maximum=1_000_000)

    # Search and documents.
    search_provider: SearchProvider | None = None
    exa_api_key: SecretStr | None = None
    exa_base_url: str | None = None
    documents_path: Path | None = None
    # Larger documents are skipped with a warning when indexing (HTML and PDF are parsed whole).
    index_max_file_bytes: int = _count(20_000_000, minimum=1_000, maximum=10_000_000_000)
    data_dir: Path = Field(default_factory=lambda: Path(user_data_dir("deepresearch")))
    # Where the app offers to export reports; None: `exports` in the data directory.
    export_dir: Path | None = None
    # The bearer token `deepresearch serve` requires; it must be set to serve beyond loopback.
    api_token: SecretStr | None = None
    # postgresql://… : checkpoints in PostgreSQL, shared by every worker (default: SQLite in
    # DATA_DIR). A secret: the URL may carry a password.
    checkpoint_url: SecretStr | None = None

    # Fetching.
    fetch_allowed_hosts: tuple[str, ...] = ()
    fetch_max_bytes: int = _count(5_000_000, minimum=1_000, maximum=100_000_000)
    fetch_timeout_seconds: float = Field(default=20.0, gt=0, le=300)

    # Supervisor and researchers.
    max_concurrent_research_units: int = _count(4, maximum=64)
    max_researcher_iterations: int = _count(60)
    max_react_tool_calls: int = _count(40)
    researcher_search_budget: int = _count(15)
    research_unit_timeout_seconds: float = Field(default=600.0, gt=0, le=86_400)
    planner_searches: int = _count(4, minimum=0, maximum=50)
    min_evidence_records: int = _count(5, minimum=0)
    min_source_domains: int = _count(3, minimum=0)
    supervisor_notes_max_bullets: int = _count(40)
    supervisor_notes_word_budget: int = _count(1200, minimum=50, maximum=100_000)
    max_evidence_claims_per_research_unit: int = _count(5)
    max_source_urls_per_claim: int = _count(5)
    max_search_results_for_agent: int = _count(8, maximum=100)

    # Quick path.
    research_mode: ResearchMode = "auto"
    max_llm_turns: int = _count(10, maximum=200)
    max_tool_iterations: int = _count(5, minimum=0, maximum=200)

    # Report checking: what happens to a cited sentence its sources do not support.
    grounding: GroundingMode = "strict"
    # A model reads each cited sentence no verbatim match settles beside its sources' passages:
    # on | off | auto (on when a real model is configured, off for the offline model).
    grounding_judge: GroundingJudgeSetting = "auto"
    # The judge's model and endpoint, each falling back to the writer role's.
    support_model: str | None = None
    support_base_url: str | None = None
    # The critic's review of each report section against its sources (0: off).
    critic_rounds: int = _count(2, minimum=0, maximum=10)

    # Cost: prices in USD per million input/output tokens, per model name
    # ("gpt-4.1-mini=0.40/1.60,gpt-4.1=2/8"); a model not listed, local or offline, costs 0.
    model_prices: dict[str, tuple[float, float]] = Field(default_factory=dict)
    # Hard caps per session (0: none). Crossing one ends research and writes a partial report.
    budget_tokens: int = _count(0, minimum=0, maximum=1_000_000_000)
    budget_usd: float = Field(default=0.0, ge=0, le=1_000_000)
    # Models that take over a call when its own model is down or its context is too small:
    # ordered "model@base_url" entries (a bare "model" keeps the role's base URL). The
    # role-specific lists win over the global one.
    fallback_models: tuple[str, ...] = ()
    orchestrator_fallback_models: tuple[str, ...] | None = None
    researcher_fallback_models: tuple[str, ...] | None = None
    planner_fallback_models: tuple[str, ...] | None = None
    writer_fallback_models: tuple[str, ...] | None = None

    # Evaluation: an LLM judge grades reports in `deepresearch eval` (off by default).
    enable_online_evals: bool = False
    eval_model: str | None = None
    eval_base_url: str | None = None

    # Tracing: OpenTelemetry spans over OTLP/HTTP to this collector (unset: no tracing).
    otel_exporter_otlp_endpoint: str | None = None
    # Record prompts, questions and tool arguments in spans (off: only what ran, and how long).
    trace_prompts: bool = False

    @field_validator(
        "orchestrator_model",
        "researcher_model",
        "planner_model",
        "writer_model",
        "orchestrator_base_url",
        "researcher_base_url",
        "planner_base_url",
        "writer_base_url",
        "exa_base_url",
        "eval_model",
        "eval_base_url",
        "support_model",
        "support_base_url",
        "search_provider",
        mode="before",
    )
    @classmethod
    def _blank_is_unset(cls, value: Any) -> Any:
        if isinstance(value, str) and not value.strip():
            return None
        return value.strip() if isinstance(value, str) else value

    @field_validator(
        "openai_api_key",
        "exa_api_key",
        "api_token",
        "checkpoint_url",
        "documents_path",
        "export_dir",
        mode="before",
    )
    @classmethod
    def _blank_secret_is_unset(cls, value: Any) -> Any:
        if isinstance(value, str) and not value.strip():
            return None
        return value

    @field_validator(
        "search_provider",
        "research_mode",
        "model_tool_calling",
        "model_structured_output",
        "grounding",
        "grounding_judge",
        mode="before",
    )
    @classmethod
    def _lowercase(cls, value: Any) -> Any:
        return value.strip().lower() if isinstance(value, str) else value

    @field_validator(
        "orchestrator_base_url",
        "researcher_base_url",
        "planner_base_url",
        "writer_base_url",
        "exa_base_url",
        "eval_base_url",
        "support_base_url",
        "otel_exporter_otlp_endpoint",
    )
    @classmethod
    def _http_url(cls, value: str | None) -> str | None:
        if value is None:
            return None
        problem = base_url_problem(value)
        if problem is not None:
            raise ValueError(problem)
        return value.rstrip("/")

    @field_validator("checkpoint_url")
    @classmethod
    def _postgres_url(cls, value: SecretStr | None) -> SecretStr | None:
        if value is None:
            return None
        scheme = value.get_secret_value().partition("://")[0].lower()
        if scheme not in ("postgresql", "postgres"):
            # The URL is not echoed: it may hold a password.
            raise ValueError("must be a postgresql:// URL (or be unset for SQLite in DATA_DIR)")
        return value

    @field_validator("fetch_allowed_hosts", mode="before")
    @classmethod
    def _split_hosts(cls, value: Any) -> Any:
        if isinstance(value, str):
            hosts = [item.strip().lower() for item in value.split(",") if item.strip()]
            for host in hosts:
                if "/" in host or " " in host or "@" in host:
                    raise ValueError("must be a comma-separated list of host or host:port")
            return tuple(hosts)
        return value

    @field_validator("model_prices", mode="before")
    @classmethod
    def _parse_prices(cls, value: Any) -> Any:
        if not isinstance(value, str):
            return value
        prices: dict[str, tuple[float, float]] = {}
        for entry in (item.strip() for item in value.split(",")):
            if not entry:
                continue
            model, equals, pair = entry.rpartition("=")
            given_in, slash, given_out = pair.partition("/")
            try:
                price_in, price_out = float(given_in), float(given_out)
            except ValueError:
                price_in = price_out = -1.0
            usable = all(math.isfinite(price) and price >= 0 for price in (price_in, price_out))
            if not (equals and slash and model.strip()) or not usable:
                raise ValueError(f"{entry!r} is not model=input/output (finite, non-negative USD)")
            prices[model.strip()] = (price_in, price_out)
        return prices

    @field_validator("model_prices")
    @classmethod
    def _non_negative_prices(
        cls, value: dict[str, tuple[float, float]]
    ) -> dict[str, tuple[float, float]]:
        for model, pair in value.items():
            if min(pair) < 0:
                raise ValueError(f"{model!r} has a negative price")
        return value

    @field_validator(
        "fallback_models",
        "orchestrator_fallback_models",
        "researcher_fallback_models",
        "planner_fallback_models",
        "writer_fallback_models",
        mode="before",
    )
    @classmethod
    def _split_fallbacks(cls, value: Any) -> Any:
        if not isinstance(value, str):
            return value
        entries = tuple(item.strip() for item in value.split(",") if item.strip())
        for entry in entries:
            model, at, base_url = entry.partition("@")
            if not model.strip():
                raise ValueError(f"{entry!r} names no model")
            if at:
                problem = base_url_problem(base_url.strip())
                if problem is not None:
                    raise ValueError(f"{entry!r}: {problem}")
        return entries

    @field_validator("documents_path")
    @classmethod
    def _existing_folder(cls, value: Path | None) -> Path | None:
        if value is None:
            return None
        path = value.expanduser()
        if not path.is_dir():
            raise ValueError("must be an existing folder of documents")
        return path

    @field_validator("data_dir", mode="before")
    @classmethod
    def _expand_data_dir(cls, value: Any) -> Any:
        if isinstance(value, str) and not value.strip():
            return Path(user_data_dir("deepresearch"))
        return Path(value).expanduser() if isinstance(value, str) else value

    # ---- resolution of defaults -------------------------------------------------------

    @property
    def llm_endpoint_configured(self) -> bool:
        """Whether any LLM endpoint was configured (a key or a base URL)."""
        if self.orchestrator_model == OFFLINE_MODEL:
            return False
        return self.openai_api_key is not None or self.orchestrator_base_url is not None

    @property
    def offline(self) -> bool:
        """True when the orchestrator is the built-in offline extractive model."""
        return self.role_model("orchestrator").offline

    def price_of(self, model: str) -> tuple[float, float]:
        """USD per million (input, output) tokens of a model; 0 when no price is set."""
        return self.model_prices.get(model, (0.0, 0.0))

    def fallbacks_for(self, role: Role) -> tuple[RoleModel, ...]:
        """The models that take over a role's calls, in order, after its own."""
        own = getattr(self, f"{role}_fallback_models")
        entries = own if own is not None else self.fallback_models
        primary = self.role_model(role)
        chain: list[RoleModel] = []
        for entry in entries:
            model, at, base_url = entry.partition("@")
            chain.append(
                RoleModel(
                    role, model.strip(), base_url.strip().rstrip("/") if at else primary.base_url
                )
            )
        return tuple(chain)

    def support_judge_model(self) -> RoleModel | None:
        """The support judge's model and endpoint (the writer's unless SUPPORT_MODEL and
        SUPPORT_BASE_URL say otherwise), or None when GROUNDING_JUDGE leaves it off."""
        writer = self.role_model("writer")
        model = RoleModel(
            "writer", self.support_model or writer.model, self.support_base_url or writer.base_url
        )
        if self.grounding_judge == "off" or model.offline:
            return None
        return model

    def role_model(self, role: Role) -> RoleModel:
        """The model and base URL for a role, falling back to the orchestrator's."""
        orchestrator = self.orchestrator_model
        if orchestrator is None:
            orchestrator = DEFAULT_ONLINE_MODEL if self.llm_endpoint_configured else OFFLINE_MODEL
        if role == "orchestrator":
            return RoleModel(role, orchestrator, self.orchestrator_base_url)
        model = getattr(self, f"{role}_model") or orchestrator
        base_url = getattr(self, f"{role}_base_url") or self.orchestrator_base_url
        return RoleModel(role, model, base_url)

    @property
    def resolved_search_provider(self) -> SearchProvider:
        """Explicit choice wins; else Exa when a key is set; else local documents."""
        if self.search_provider is not None:
            return self.search_provider
        if self.exa_api_key is not None and self.documents_path is None:
            return "exa"
        return "local"

    @property
    def resolved_documents_path(self) -> Path:
        """The folder the local provider searches: DOCUMENTS_PATH or the bundled samples."""
        return self.documents_path if self.documents_path is not None else SAMPLE_CORPUS

    @property
    def sessions_db_path(self) -> Path:
        return self.data_dir / "sessions.sqlite"

    @property
    def reports_dir(self) -> Path:
        return self.data_dir / "reports"

    @property
    def index_db_path(self) -> Path:
        return self.data_dir / "index.sqlite"
