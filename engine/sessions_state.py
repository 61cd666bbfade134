"""What a session's checkpoint says, read the same way by every door and every worker.

The checkpoint is the session's truth; the event log and the report file are told from it.
A process killed between a checkpoint and the events or file that follow it leaves them
behind, so whoever resumes (or reads) the session derives what is missing from here:
whether the run finished, the evidence it holds, its typed report.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from engine.citations.evidence import EvidenceRecord
from engine.citations.evidence_keys import record_key
from engine.config import Settings
from engine.events import EvidenceAdded, ReportReady


def is_finished(snapshot: Any) -> bool:
    """Whether the graph reached its end: no task left in its last step.

    A task that finished before its process was killed has only its writes saved (no
    checkpoint after it yet): the run is not over, whatever `next` says (it omits tasks
    with writes), until the graph is resumed past it.
    """
    return snapshot.created_at is not None and not snapshot.tasks


def evidence_of(snapshot: Any) -> list[EvidenceAdded]:
    """Each piece of evidence the state holds (its subgraphs' too, with `subgraphs=True`),
    pending writes included, in ledger order."""
    seen: set[str] = set()
    events: list[EvidenceAdded] = []
    for item in _ledger_items(snapshot):
        key = record_key(item)
        if key in seen:
            continue
        seen.add(key)
        events.append(EvidenceAdded(record=EvidenceRecord.model_validate(item)))
    return events


def _ledger_items(snapshot: Any) -> list[dict[str, Any]]:
    items = list((snapshot.values or {}).get("evidence_ledger") or [])
    for task in snapshot.tasks or ():
        state = getattr(task, "state", None)
        if state is not None and hasattr(state, "values"):
            items += _ledger_items(state)
    return items


def report_saved_here(settings: Settings, values: dict[str, Any]) -> dict[str, Any]:
    """`values` with its report's files on this machine: written from the state when the
    worker that wrote them is elsewhere (or its files are gone)."""
    from engine.data_dir import private_dir, write_private_text

    recorded = values.get("report_path")
    if not values.get("verified_report") or not recorded or Path(recorded).is_file():
        return values
    report_path = private_dir(settings.reports_dir) / Path(recorded).name
    audit_path = report_path.with_suffix(".audit.json")
    write_private_text(report_path, values["verified_report"])
    audit = json.dumps(values.get("audit") or {}, indent=2, ensure_ascii=False)
    write_private_text(audit_path, audit)
    return {**values, "report_path": str(report_path), "audit_path": str(audit_path)}


def saved_report(settings: Settings, session_id: str) -> ReportReady | None:
    """The latest report the session's checkpoint holds, typed; None when it holds none.

    Synchronous (the sessions list and the HTTP routes call it from threads): it reads the
    checkpoint store directly, without the graph.
    """
    values = _saved_values(settings, session_id)
    if not values or not values.get("verified_report"):
        return None
    from engine.nodes.verify import report_ready_event

    return report_ready_event(values)


def _saved_values(settings: Settings, session_id: str) -> dict[str, Any] | None:
    config = {"configurable": {"thread_id": session_id, "checkpoint_ns": ""}}
    from engine.store import session_store

    saved = session_store(settings).read_checkpoint(config)
    if saved is None:
        return None
    return dict(saved.checkpoint.get("channel_values") or {})
