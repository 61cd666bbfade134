"""`deepresearch doctor`: what is configured, what is missing, and what each endpoint can do.

The report is data first (`DoctorReport`, report.py) so the CLI prints it and the app's
settings screen renders the same facts. The checks that need no network come first
(configuration.py). Each configured endpoint is then asked `GET /models` (endpoints.py: any
HTTP answer within a few seconds counts as reachable); then each distinct LLM endpoint (base
URL and model; roles that share one are probed once) gets the capability probes a run would
otherwise send on its first call (capabilities.py): one tool call, one plain answer with tools
bound, and one JSON reply per structured-output method. What they find is the endpoint's
model profile, stored under the data directory so runs reuse it. Messages name an endpoint by
host:port only, and a key is never sent anywhere but its own endpoint.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import replace

from engine.config import Settings
from engine.doctor.capabilities import probe_capabilities
from engine.doctor.configuration import static_checks
from engine.doctor.discovery import discover_local_servers, wants_discovery
from engine.doctor.endpoints import check_reachable, exa_endpoint, llm_targets, models_endpoint
from engine.doctor.report import Check, DoctorReport, EndpointReport

PROBE_TIMEOUT_SECONDS = 3.0

__all__ = ["PROBE_TIMEOUT_SECONDS", "DoctorReport", "collect_report", "collect_report_async"]


async def collect_report_async(
    settings: Settings,
    *,
    probe: bool = True,
    progress: Callable[[str], None] | None = None,
    local_ports: tuple[tuple[int, str], ...] | None = None,
    calibrate_judge: bool = False,
) -> DoctorReport:
    """Static checks; with `probe`, every endpoint's reachability, then each LLM's capabilities
    (and with `calibrate_judge`, the support judge's calibration, a few calls more).

    With `local_ports` (see `engine.doctor.discovery.USUAL_PORTS`) and no endpoint configured,
    it also lists the model servers that answer on those local ports.

    Reachability is checked concurrently (a few seconds at most). Capability probes run one
    endpoint at a time, since endpoints often share one small server, each request within
    `LLM_TIMEOUT_SECONDS`. `progress` hears one line as each endpoint's probes begin.
    """
    checks, can_run = static_checks(settings)
    if not probe:
        configured = bool(llm_targets(settings))
        return DoctorReport(
            checks=checks, can_run=can_run, probed=False, endpoints_configured=configured
        )
    report = await _probed_report(settings, checks, can_run, progress)
    if calibrate_judge:
        report = await _with_judge_calibration(settings, report, progress)
    if local_ports is None or not wants_discovery(settings):
        return report
    servers = await discover_local_servers(local_ports)
    return replace(
        report, local_servers=servers, local_ports=tuple(port for port, _ in local_ports)
    )


async def _probed_report(
    settings: Settings,
    checks: list[Check],
    can_run: bool,
    progress: Callable[[str], None] | None,
) -> DoctorReport:
    from engine.models.compat.profile import endpoint_label

    targets = llm_targets(settings)
    exa = exa_endpoint(settings)
    started = time.monotonic()
    reachability = await asyncio.gather(
        *(
            check_reachable(
                models_endpoint(settings, t), PROBE_TIMEOUT_SECONDS, busy_is_a_warning=True
            )
            for t in targets
        ),
        *([check_reachable(exa, PROBE_TIMEOUT_SECONDS)] if exa is not None else []),
    )
    if exa is not None:
        exa_check = reachability[-1]
        checks.append(exa_check)
        can_run = can_run and exa_check.status != "error"
    reports: list[EndpointReport] = []
    for target, reachable in zip(targets, reachability, strict=False):
        label = endpoint_label(target.base_url)
        if reachable.status not in ("ok", "warn"):
            reports.append(
                EndpointReport(
                    label,
                    target.model,
                    target.roles,
                    reachable,
                    elapsed_seconds=time.monotonic() - started,
                )
            )
            continue
        if progress is not None:
            progress(f"probing {label} (model {target.model}): a few small requests…")
        reports.append(await probe_capabilities(settings, target, reachable, time.monotonic()))
    can_run = can_run and all(report.usable for report in reports)
    return DoctorReport(checks=checks, can_run=can_run, endpoints=reports)


async def _with_judge_calibration(
    settings: Settings, report: DoctorReport, progress: Callable[[str], None] | None
) -> DoctorReport:
    """The report with the judge's calibration on its endpoint's lines, when that endpoint
    answered (a judge on an endpoint of its own is calibrated by the first report it judges)."""
    from engine.doctor.judge_check import judge_calibration
    from engine.grounding.calibration import calibration_pairs
    from engine.models.compat.profile import endpoint_label

    target = settings.support_judge_model()
    if target is None:
        return report
    label = endpoint_label(target.base_url)
    for index, endpoint in enumerate(report.endpoints):
        if (endpoint.label, endpoint.model) != (label, target.model) or not endpoint.usable:
            continue
        if progress is not None:
            progress(
                f"calibrating the support judge ({target.model}) on "
                f"{len(calibration_pairs())} labelled sentences…"
            )
        check = await judge_calibration(settings)
        if check is None:
            return report
        judged = replace(endpoint, capabilities=(*endpoint.capabilities, check))
        endpoints = [*report.endpoints[:index], judged, *report.endpoints[index + 1 :]]
        return replace(report, endpoints=endpoints)
    return report


def collect_report(
    settings: Settings,
    *,
    probe: bool = True,
    progress: Callable[[str], None] | None = None,
    local_ports: tuple[tuple[int, str], ...] | None = None,
    calibrate_judge: bool = False,
) -> DoctorReport:
    """Synchronous wrapper for the command line."""
    return asyncio.run(
        collect_report_async(
            settings,
            probe=probe,
            progress=progress,
            local_ports=local_ports,
            calibrate_judge=calibrate_judge,
        )
    )
