"""The header: phase, quality gate, elapsed time, tokens, and the offline badge."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from tui.presentation.formatting import counted, format_tokens, one_line, toward
from tui.presentation.labels import gate_status_label, phase_label
from tui.view.elapsed import format_elapsed

if TYPE_CHECKING:
    from engine.events import RuntimeProgress, UsageUpdated

_GATE_STYLE = {"pass": "bold green", "retry": "bold yellow", "none": "dim"}
# Phases after research: a gate that never decided by then will not decide.
_AFTER_RESEARCH = {"writing", "verifying", "done"}
# How a line too long for the terminal is made to fit, first to last: a segment given a
# shorter form (`short`, then `shorter`) or left out (`drop`). The gate's short form leaves
# out the reason, its shorter one the decision too (its counts stay). The phase and the
# elapsed time always stay. A model call's line is live progress of a slow model: while one
# runs it outranks the gate and the phase's detail, except during research, where the gate's
# counts are what research works toward: there the call says only whose it is and for how
# long, and the phase drops its "phase" label, so that both stay; otherwise the gate's counts
# outrank the phase's detail.
_Step = tuple[str, str]
_FIT_STEPS: tuple[_Step, ...] = (
    ("drop", "tokens"),
    ("short", "evidence"),
    ("drop", "documents"),
    ("short", "model"),
)
_FIT_WITH_MODEL: tuple[_Step, ...] = (
    ("shorter", "evidence"),
    ("drop", "name"),
    ("drop", "evidence"),
    ("short", "phase"),
)
_FIT_RESEARCHING_WITH_MODEL: tuple[_Step, ...] = (
    ("shorter", "evidence"),
    ("shorter", "model"),
    ("short", "phase"),
    ("shorter", "phase"),
    ("drop", "name"),
    ("drop", "model"),
    ("drop", "evidence"),
)
_FIT_WITHOUT_MODEL: tuple[_Step, ...] = (
    ("short", "phase"),
    ("shorter", "evidence"),
    ("drop", "name"),
    ("drop", "evidence"),
)


class StatusHeader(Vertical):
    """Renders what the engine last reported; shows nothing for facts not yet reported."""

    DEFAULT_CSS = """
    StatusHeader { height: auto; dock: top; }
    StatusHeader #status-line { height: 1; background: $panel; padding: 0 1; }
    StatusHeader #offline-badge {
        height: auto; display: none; background: $warning; color: $text; text-style: bold;
        padding: 0 0 0 1;
    }
    StatusHeader.-offline #offline-badge { display: block; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._phase = ""
        self._phase_label = ""
        self._progress: RuntimeProgress | None = None
        # The supervisor's last report with a gate decision: a later pass that did not judge
        # the gate ("none") does not take the decision back.
        self._gate: RuntimeProgress | None = None
        self._research_over = False
        self._researching = False
        self._usage: UsageUpdated | None = None
        self._elapsed: float | None = None
        self._elapsed_final = False
        self._documents = ""
        self._model_call = ""
        self._model_call_short = ""
        self._model_call_tiny = ""
        self._badge_ready = False
        self._offline_model = False
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
        self._phase_label = label
        # A detail that opens with the phase's own word says it once ("stopped; resume to
        # continue", not "stopped · stopped; resume to continue").
        said = detail.casefold().startswith(label.casefold())
        self._phase = detail if said else f"{label} · {detail}" if detail else label
        self._research_over = phase in _AFTER_RESEARCH
        self._researching = phase == "researching"
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

    def show_model_call(self, text: str, short: str = "", tiny: str = "") -> None:
        """What the model is doing on a long call ("writer model: writing… 120 tokens"), or "";
        `short` says it in fewer cells, for a narrow terminal, and `tiny` in fewer still
        ("researcher 35s"), for a narrow terminal during research."""
        self._model_call = text
        self._model_call_short = short if text else ""
        self._model_call_tiny = tiny if text else ""
        self._render_line()

    def show_offline(self, offline: bool) -> None:
        # Not `query_one`: the settings are read in a thread, and their answer may arrive
        # while the app is closing and the badge is already gone.
        for badge_line in self.query("#offline-badge").results(Static):
            if offline and not self._badge_ready:
                from engine.events import OFFLINE_NOTICE

                badge = Text.assemble((" OFFLINE ", "reverse bold"), " ", OFFLINE_NOTICE)
                badge_line.update(badge)
                self._badge_ready = True
        self.set_class(offline, "-offline")
        self._offline_model = offline
        self._render_line()

    def reset(self) -> None:
        self._phase, self._progress, self._usage, self._elapsed = "", None, None, None
        self._phase_label = ""
        self._gate, self._research_over, self._researching = None, False, False
        self._evidence = None
        self._model_call = self._model_call_short = self._model_call_tiny = ""
        self._render_line()

    def status_text(self) -> Text:
        """The whole line: every fact reported so far."""
        return Text("  ").join(text for _, text in self._segments())

    def fitted_text(self, width: int) -> Text:
        """The line in `width` cells: the least needed facts are shortened or go whole (see
        `_FIT_STEPS`) rather than one being cut mid-word."""
        segments = self._segments()
        # Each shortening and the form it replaced, to undo where the room allows.
        shortened: list[tuple[str, Text]] = []
        steps = _FIT_STEPS + self._last_fit_steps()
        for how, name in steps:
            if _joined(segments).cell_len <= width:
                break
            if how == "drop":
                segments = [(each, text) for each, text in segments if each != name]
                continue
            short = self._short_form(name, shorter=how == "shorter")
            current = dict(segments).get(name)
            if short is not None and current is not None:
                segments = [(each, short if each == name else text) for each, text in segments]
                shortened.append((name, current))
        # A segment shortened before a later one went whole may fit longer again.
        kept = {name for name, _ in segments}
        for name, longer_text in reversed(shortened):
            if name not in kept:
                continue
            longer = [(each, longer_text if each == name else text) for each, text in segments]
            if _joined(longer).cell_len > width:
                kept.discard(name)  # its longer forms fit no better
                continue
            segments = longer
        return _joined(segments)

    def _last_fit_steps(self) -> tuple[_Step, ...]:
        # The app's name goes only for the gate's counts and a live model call.
        if not self._model_call:
            return _FIT_WITHOUT_MODEL
        return _FIT_RESEARCHING_WITH_MODEL if self._researching else _FIT_WITH_MODEL

    def _short_form(self, name: str, *, shorter: bool = False) -> Text | None:
        if name == "evidence":
            return self._evidence_text(with_reason=False, with_decision=not shorter)
        if name == "model":
            tiny = self._model_call_tiny if shorter else ""
            return self._model_text(tiny or self._model_call_short or self._model_call)
        if name == "phase":
            if shorter:
                return Text(self._phase_label or "idle", style="bold")
            return self._phase_text(self._phase_label)
        return None

    @staticmethod
    def _phase_text(phase: str) -> Text:
        return Text.assemble(("phase ", "dim"), (phase or "idle", "bold"))

    @staticmethod
    def _model_text(text: str) -> Text:
        return Text(one_line(text, 60), style="italic")

    def _segments(self) -> list[tuple[str, Text]]:
        segments = [
            ("name", Text("deepresearch", style="bold")),
            ("phase", self._phase_text(self._phase)),
        ]
        if self._elapsed is not None:
            # Beside the phase: at 80 columns the gate's counts would push the time off the line.
            elapsed = format_elapsed(self._elapsed, final=self._elapsed_final)
            segments.append(("elapsed", Text.assemble(("elapsed ", "dim"), elapsed)))
        if self._documents:
            segments.append(("documents", Text(self._documents, style="italic")))
        if self._model_call:
            segments.append(("model", self._model_text(self._model_call)))
        evidence = self._evidence_text()
        if evidence is not None:
            segments.append(("evidence", evidence))
        if self._usage is not None and not self._offline_model:
            # The offline model is no language model: its "tokens" are words it copied.
            segments.append(("tokens", self._usage_text(self._usage)))
        return segments

    def _evidence_text(
        self, *, with_reason: bool = True, with_decision: bool = True
    ) -> Text | None:
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
        # Short of room, a count that meets its need says only the count.
        compact = not with_reason
        text = Text.assemble(
            ("gate " if with_decision else "", "dim"),
            f"{_against(records, progress.min_evidence_records, 'record', compact=compact)}"
            f" · {_against(domains, progress.min_source_domains, 'domain', compact=compact)}",
        )
        if with_decision:
            text.append(" · ")
            text.append_text(self._gate_decision(records, with_reason=with_reason))
        return text

    def forget_gate(self) -> None:
        """A new question: the last one's gate decision says nothing about it."""
        self._gate, self._progress, self._evidence = None, None, None
        self._research_over = False
        self._render_line()

    def _gate_decision(self, records: int, *, with_reason: bool = True) -> Text:
        """What the gate last decided, or why it never did. A rejection reported once research
        is over is final: research ended without passing it."""
        decided = self._gate
        if decided is None:
            if not self._research_over:
                return Text(gate_status_label("none"), style=_GATE_STYLE["none"])
            if records == 0:
                return Text("research ended with no evidence", style="bold yellow")
            return Text("not checked: research ended first", style="yellow")
        status = decided.quality_gate_status
        label = "not passed" if status == "retry" and self._research_over else None
        text = Text(label or gate_status_label(status), style=_GATE_STYLE.get(status, ""))
        if decided.quality_gate_reason and with_reason:
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
            # Before the first layout (or while hidden) the line has no width yet: fitted to
            # the terminal's, less the line's padding, since the header spans the screen. A
            # line rendered whole here stayed too long once shown, until the next resize.
            width = line.size.width or max(self.app.size.width - 2, 20)
            line.update(self.fitted_text(width))


def _against(count: int, need: int, noun: str, *, compact: bool) -> str:
    """ "3 records (need 5)"; short of room "3 of 5 records", or "6 records" once met."""
    if not compact:
        return toward(count, need, noun)
    return counted(count, noun) if count >= need else f"{count} of {counted(need, noun)}"


def _joined(segments: list[tuple[str, Text]]) -> Text:
    return Text("  ").join(text for _, text in segments)
