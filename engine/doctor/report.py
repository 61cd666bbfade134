"""What doctor found, as data: checks, capability probes and endpoint reports, and their text.

The CLI prints `DoctorReport.render()`; the app's settings screen shows the same text.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from engine.config import Role

if TYPE_CHECKING:
    from engine.doctor.discovery import LocalServer
    from engine.models.compat.profile import ModelProfile

Status = Literal["ok", "missing", "error", "info", "warn"]
_MARKS: dict[Status, str] = {
    "ok": "ok ",
    "missing": "-- ",
    "error": "!! ",
    "info": "   ",
    "warn": "!  ",
}


@dataclass(frozen=True)
class Check:
    """One line of the report: a fact, and what its absence disables."""

    name: str
    status: Status
    detail: str
    disables: str = ""


@dataclass(frozen=True)
class CapabilityCheck:
    """One capability probe: what was asked, whether it worked, and what came back."""

    name: str
    ok: bool
    detail: str


@dataclass(frozen=True)
class EndpointReport:
    """Everything doctor learned about one LLM endpoint (base URL + model)."""

    label: str  # host:port, never a path, user or key
    model: str
    roles: tuple[Role, ...]
    reachable: Check
    capabilities: tuple[CapabilityCheck, ...] = ()
    profile: ModelProfile | None = None
    context_source: str = ""
    remembered_in: Path | None = None
    warnings: tuple[str, ...] = ()
    error: str = ""
    elapsed_seconds: float | None = None

    @property
    def usable(self) -> bool:
        """Reachable, probed, and it answered: a session can run against it."""
        answered = self.reachable.status in ("ok", "warn")
        return answered and self.profile is not None and not self.error

    def profile_line(self) -> str:
        if self.profile is None:
            return ""
        return (
            f"tools: {self.profile.tool_calling}, JSON: {self.profile.structured_output}, "
            f"context {self.profile.context_window} tokens ({self.context_source})"
        )

    def render(self) -> list[str]:
        roles = ", ".join(self.roles)
        lines = [f"LLM endpoint {self.label}, model {self.model} (used by {roles})"]
        rows: list[tuple[Status, str, str]] = [
            (self.reachable.status, "reachable", self.reachable.detail)
        ]
        for check in self.capabilities:
            verdict = "yes" if check.ok else "no "
            rows.append(("ok" if check.ok else "missing", check.name, f"{verdict}  {check.detail}"))
        if self.error:
            rows.append(("error", "probe", self.error))
        if self.profile is not None:
            rows.append(("info", "profile", self.profile_line()))
        width = max(len(name) for _, name, _ in rows)
        lines.extend(
            f"  {_MARKS[status]} {name.ljust(width)}  {text}" for status, name, text in rows
        )
        if self.remembered_in is not None:
            lines.append(f"      remembered for later runs in {self.remembered_in}")
        lines.extend(f"  {_MARKS['warn']} {warning}" for warning in self.warnings)
        if self.elapsed_seconds is not None:
            lines.append(f"      checked in {self.elapsed_seconds:.1f} s")
        return lines


@dataclass(frozen=True)
class DoctorReport:
    checks: list[Check]
    can_run: bool
    endpoints: list[EndpointReport] = field(default_factory=list)
    # None: not looked for (an endpoint is configured, or no probing); else what answered.
    local_servers: list[LocalServer] | None = None
    local_ports: tuple[int, ...] = ()
    # False when nothing was sent: configured endpoints are then named, not yet checked.
    probed: bool = True
    endpoints_configured: bool = False

    def render_local_servers(self) -> list[str]:
        if self.local_servers is None:
            return []
        lines = ["", "Local model servers (asked GET /v1/models on 127.0.0.1; nothing else sent)"]
        if not self.local_servers:
            ports = ", ".join(str(port) for port in self.local_ports)
            return [*lines, f"    none answered on ports {ports}"]
        for server in self.local_servers:
            lines.append(f"{_MARKS['info']} {server.describe()}")
            chosen = " ".join(f"{name}={value}" for name, value in server.settings().items())
            lines.append(f"      to use it: set {chosen} (in the app: F4)")
        return lines

    def render(self) -> str:
        lines = ["deepresearch doctor", ""]
        width = max(len(check.name) for check in self.checks)
        for check in self.checks:
            line = f"{_MARKS[check.status]} {check.name.ljust(width)}  {check.detail}"
            if check.disables:
                line += f"\n{' ' * (width + 6)}disables: {check.disables}"
            lines.append(line)
        for endpoint in self.endpoints:
            lines.append("")
            lines.extend(endpoint.render())
        lines.extend(self.render_local_servers())
        if not self.probed and self.endpoints_configured:
            lines.append("")
            lines.append(
                f"{_MARKS['warn']}endpoints not checked yet (nothing sent; F5 probes them)"
            )
        lines.append("")
        lines.append(
            "A research session can run."
            if self.can_run
            else "A research session cannot run: fix the lines marked !! above."
        )
        return "\n".join(lines)
