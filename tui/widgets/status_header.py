"""The header: phase, quality gate, elapsed time, tokens, and the offline badge."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from tui.presentation.formatting import counted, format_tokens, fraction, one_line
from tui.presentation.labels import gate_status_label, phase_label
from tui.view.elapsed import format_elapsed

if TYPE_CHECKING:
    from engine.events import RuntimeProgress, UsageUpdated

_GATE_STYLE = {"pass": "bold green", "retry": "bold yellow", "none": "dim"}
# Phases after research: a gate that never decided by then will not decide.
_AFTER_RESEARCH = {"writing", "verifying", "done"}
# What leaves a line too long for the terminal, first to last; the phase, the elapsed time and
# the gate stay.
_DROP_ORDER = ("name", "tokens", "model", "documents")


class StatusHeader(Vertical):
    """Renders what the engine last reported; shows nothing for facts not yet reported."""

    DEFAULT_CSS = """
    StatusHeader { height: auto; dock: top; }
    StatusHeader #status-line { height: 1; background: $panel; padding: 0 1; }
    StatusHeader #offline-badge {
        height: 1; display: none; background: $warning; color: $text; text-style: bold;
        padding: 0 1;
    }
    StatusHeader.-offline #offline-badge { display: block; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._phase = ""
        self._progress: RuntimeProgress | None = None
        # The supervisor's last report with a gate decision: a later pass that did not judge
        # the gate ("none") does not take the decision back.
        self._gate: RuntimeProgress | None = None
        self._research_over = False
        self._usage: UsageUpdated | None = None
        self._elapsed: float | None = None
        self._elapsed_final = False
        self._documents = ""
        self._model_call = ""
        self._badge_ready = False
        # Records and domains in the ledger so far: the gate's counts between its reports.
        self._evidence: tuple[int, int] | None = None

    def compose(self) -> ComposeResult:
        yield Static(id="status-line")
        # The badge's wording comes from the engine, read when the badge is first shown.
        yield Static(id="offline-badge")

    def on_mount(self) -> None:
        self._render_line()

    def show_phase(self, phase: str, detail: str = "") -> None:
        label = phase_label(phase)
        self._phase = f"{label} · {detail}" if detail else label
        self._research_over = phase in _AFTER_RESEARCH
        self._render_line()

    def show_evidence(self, records: int, domains: int) -> None:
        self._evidence = (records, domains)
        self._render_line()

    def show_progress(self, progress: RuntimeProgress) -> None:
        self._progress = progress
        if progress.quality_gate_status != "none":
            self._gate = progress
        self._render_line()

    def show_usage(self, usage: UsageUpdated) -> None:
        self._usage = usage
        self._render_line()

    def show_elapsed(self, seconds: float | None, *, final: bool = False) -> None:
        """A run's time so far, or with `final` what it took (None: unknown, not shown)."""
        self._elapsed = seconds
        self._elapsed_final = final
        self._render_line()

    def show_documents(self, text: str) -> None:
        """What the documents index is doing ("indexing documents 3/42"), or "" for nothing."""
        self._documents = text
        self._render_line()

    def show_model_call(self, text: str) -> None:
        """What the model is doing on a long call ("writer model: writing… 120 tokens"), or ""."""
        self._model_call = text
        self._render_line()

    def show_offline(self, offline: bool) -> None:
        if offline and not self._badge_ready:
            from engine.events import OFFLINE_NOTICE

            badge = Text.assemble((" OFFLINE ", "reverse bold"), "  ", OFFLINE_NOTICE)
            self.query_one("#offline-badge", Static).update(badge)
            self._badge_ready = True
        self.set_class(offline, "-offline")

    def reset(self) -> None:
        self._phase, self._progress, self._usage, self._elapsed = "", None, None, None
        self._gate, self._research_over = None, False
        self._evidence = None
        self._model_call = ""
        self._render_line()

    def status_text(self) -> Text:
        """The whole line: every fact reported so far."""
        return Text("  ").join(text for _, text in self._segments())

    def fitted_text(self, width: int) -> Text:
        """The line in `width` cells: the least needed facts go whole (the app's name, then
        tokens, the model call, the documents index) rather than one being cut mid-word."""
        segments = self._segments()
        for drop in _DROP_ORDER:
            line = Text("  ").join(text for _, text in segments)
            if line.cell_len <= width:
                return line
            segments = [(name, text) for name, text in segments if name != drop]
        return Text("  ").join(text for _, text in segments)

    def _segments(self) -> list[tuple[str, Text]]:
        phase = Text.assemble(("phase ", "dim"), (self._phase or "idle", "bold"))
        segments = [("name", Text("deepresearch", style="bold")), ("phase", phase)]
        if self._elapsed is not None:
            # Beside the phase: at 80 columns the gate's counts would push the time off the line.
            elapsed = format_elapsed(self._elapsed, final=self._elapsed_final)
            segments.append(("elapsed", Text.assemble(("elapsed ", "dim"), elapsed)))
        if self._documents:
            segments.append(("documents", Text(self._documents, style="italic")))
        if self._model_call:
            segments.append(("model", Text(one_line(self._model_call, 60), style="italic")))
        evidence = self._evidence_text()
        if evidence is not None:
            segments.append(("evidence", evidence))
        if self._usage is not None:
            segments.append(("tokens", self._usage_text(self._usage)))
        return segments

    def _evidence_text(self) -> Text | None:
        """The gate's counts against its thresholds, or the ledger's counts before any gate."""
        progress = self._progress
        records, domains = self._evidence or (0, 0)
        if progress is None:
            if self._evidence is None:
                return None
            counts = f"{counted(records, 'record')} · {counted(domains, 'domain')}"
            return Text.assemble(("evidence ", "dim"), counts)
        # The ledger may be ahead of the supervisor's last report: show the larger count.
        records = max(records, progress.evidence_record_count)
        domains = max(domains, progress.source_domain_count)
        text = Text.assemble(
            ("gate ", "dim"),
            f"{fraction(records, progress.min_evidence_records, 'record')}"
            f" · {fraction(domains, progress.min_source_domains, 'domain')} · ",
        )
        text.append_text(self._gate_decision(records))
        return text

    def forget_gate(self) -> None:
        """A new question: the last one's gate decision says nothing about it."""
        self._gate, self._progress, self._evidence = None, None, None
        self._research_over = False
        self._render_line()

    def _gate_decision(self, records: int) -> Text:
        """What the gate last decided, or why it never did."""
        decided = self._gate
        if decided is None:
            if not self._research_over:
                return Text(gate_status_label("none"), style=_GATE_STYLE["none"])
            if records == 0:
                return Text("research ended with no evidence", style="bold yellow")
            return Text("not checked: research ended first", style="yellow")
        status = decided.quality_gate_status
        text = Text(gate_status_label(status), style=_GATE_STYLE.get(status, ""))
        if decided.quality_gate_reason:
            text.append(f" ({one_line(decided.quality_gate_reason, 60)})", style="italic")
        return text

    @staticmethod
    def _usage_text(usage: UsageUpdated) -> Text:
        # Imported here: usage only arrives once a session runs, after the first frame.
        from engine.progress_text import describe_spend

        total_in, total_out = usage.total_input_tokens, usage.total_output_tokens
        return Text.assemble(
            ("tokens ", "dim"),
            f"{format_tokens(total_in)} in · {format_tokens(total_out)} out",
            describe_spend(usage),
        )

    def on_resize(self) -> None:
        self._render_line()

    def _render_line(self) -> None:
        # Not `is_mounted`: that is still False inside `on_mount`, which left the line blank
        # until the first session event. The child exists as soon as compose has run.
        for line in self.query("#status-line").results(Static):
            # Before the first layout there is no width yet: the whole line.
            width = line.size.width or 10_000
            line.update(self.fitted_text(width))
