"""The Plan pane: the proposed plan, reviewed and edited entirely from the keyboard."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Static

from tui.view.track_fields import EditResult, TrackFields
from tui.widgets.hanging_lines import HangingLines
from tui.widgets.track_editor import TrackEditor

if TYPE_CHECKING:
    # The schema loads with the first plan, not with the first frame.
    from engine.schemas import PlanDecision, ResearchPlan
    from tui.view.plan_draft import PlanDraft

NO_PLAN_YET = "No plan yet. Ask a question below."
_REVIEW_ACTIONS = {
    "cursor_up",
    "cursor_down",
    "edit",
    "add",
    "delete",
    "move_up",
    "move_down",
    "approve",
    "revise",
    "cancel_plan",
}
_SCROLL_ACTIONS = {"cursor_up", "cursor_down"}


_OUTCOME_STYLES = {"approved": "green", "cancelled": "yellow"}


class PlanPane(Vertical, can_focus=True):
    """Shows the plan; while a review is pending, edits go into a validated draft."""

    ALLOW_MAXIMIZE = True
    # Ordered by importance: the context footer shows them in this order.
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "approve", "Approve", id="plan.approve"),
        Binding("enter,e", "edit", "Edit", id="plan.edit"),
        Binding("r", "revise", "Revise", id="plan.revise"),
        Binding("a", "add", "Add", id="plan.add"),
        Binding("d,delete", "delete", "Delete", id="plan.delete"),
        Binding("shift+up,K", "move_up", "Move", key_display="K/J", id="plan.move_up"),
        Binding("shift+down,J", "move_down", "Move down", show=False, id="plan.move_down"),
        Binding("x", "cancel_plan", "Cancel", id="plan.cancel"),
        Binding("u", "undo", "Undo", id="plan.undo"),
        Binding("up,k", "cursor_up", "Up", show=False, id="plan.up"),
        Binding("down,j", "cursor_down", "Down", show=False, id="plan.down"),
    ]

    class Decided(Message):
        """The person's plan decision, to be sent to the engine."""

        def __init__(self, decision: PlanDecision) -> None:
            super().__init__()
            self.decision = decision

    class FeedbackWanted(Message):
        """The person wants to send the plan back; the screen asks for the feedback."""

    class Editing(Message):
        """A track editor opened or closed; the screen gives the pane room for it."""

        def __init__(self, active: bool) -> None:
            super().__init__()
            self.active = active

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.border_title = "1 Plan"
        self.draft: PlanDraft | None = None
        self.revision = 0
        self.reviewing = False
        self.outcome = "approved"
        # The engine reported the plan approved with the person's edits.
        self.approved_edited = False
        self.cursor = 0
        # The summary says a plan is on its way ("⋯ drafting the plan…").
        self._planning = False
        self._editor: TrackEditor | None = None
        self._track_widgets: list[HangingLines] = []
        # Titles of tracks research ended without, and why ("enough evidence").
        self._unresearched: tuple[set[str], str] = (set(), "")
        # The research unit limit and the feedback so far, which decide what research reaches.
        self._limit: tuple[int, list[str], list[str]] = (0, [], [])

    def compose(self) -> ComposeResult:
        yield Static(Text(NO_PLAN_YET, style="dim"), id="plan-summary")
        # The scope scrolls with the tracks: in a pane a few rows high, a long scope would
        # otherwise fill it and leave the tracks out of reach.
        with VerticalScroll(id="plan-body", can_focus=False):
            # Apart from the status line so that a long scope wraps under its text, not
            # under "Scope:".
            scope = HangingLines([], id="plan-scope")
            scope.display = False
            yield scope
            yield Vertical(id="plan-tracks")
        notice = Static(id="plan-notice")
        notice.display = False  # a row of its own only while it says something
        yield notice

    # ---- what the engine sends ---------------------------------------------------------

    def show_plan(
        self,
        plan: ResearchPlan,
        *,
        revision: int,
        reviewing: bool,
        note: str = "",
        unit_limit: int = 0,
        requests: list[str] | None = None,
        edited_before: list[str] | None = None,
    ) -> None:
        """`unit_limit`, `requests` (the feedback so far) and `edited_before` (tracks edited at
        earlier reviews) let the review mark the tracks research would not reach."""
        from tui.view.plan_draft import PlanDraft

        was_editing = self._editor is not None
        self.draft = PlanDraft(plan)
        self._limit = (unit_limit, list(requests or []), list(edited_before or []))
        self.revision = revision
        self.reviewing = reviewing
        self.outcome = "approved"
        self.approved_edited = False
        self._unresearched = (set(), "")
        self.cursor = min(self.cursor, len(plan.tracks) - 1)
        self._editor = None
        self._render_plan()
        self._notice(note, error=bool(note))
        self.refresh_bindings()
        if was_editing:
            self.post_message(self.Editing(False))

    def show_approved(self, plan: ResearchPlan, *, revision: int, edited: bool) -> None:
        """The plan research runs on, as the engine reported it approved."""
        self.show_plan(plan, revision=revision, reviewing=False)
        self.approved_edited = edited
        self._render_plan()

    def end_review(self, outcome: str = "approved") -> None:
        """Leave review; `outcome` is what the plan's status line says now."""
        if self._editor is not None:
            self.post_message(self.Editing(False))
        self.reviewing = False
        self.outcome = outcome
        self._editor = None
        self._render_plan()
        self._notice("")  # "Revised with your feedback" spoke of the review now closed
        self.refresh_bindings()

    def clear(self) -> None:
        if self._editor is not None:
            self.post_message(self.Editing(False))
        self.draft, self.reviewing, self.cursor, self._editor = None, False, 0, None
        self.approved_edited = False
        self._unresearched = (set(), "")
        self.query_one("#plan-summary", Static).update(Text(NO_PLAN_YET, style="dim"))
        self._show_scope("")
        self.query_one("#plan-tracks", Vertical).remove_children()
        self._notice("")
        self.refresh_bindings()

    def show_unresearched(self, titles: list[str], reason: str) -> None:
        """Research ended without these tracks: each says it was skipped, and why."""
        self._unresearched = (set(titles), reason)
        self._render_plan()

    def show_quick_path(self) -> None:
        """The question took the quick path: there will be no plan to review."""
        if self.draft is None:
            self._planning = False
            self.query_one("#plan-summary", Static).update(
                Text("No plan: a quick question is answered directly.", style="dim")
            )

    def show_phase(self, phase: str) -> None:
        """Planning progress: what the engine is doing before (or while revising) a plan."""
        if not phase:
            return
        from tui.presentation.labels import phase_label

        if self.draft is None:
            self._planning = True
            self.query_one("#plan-summary", Static).update(
                Text.assemble(("⋯ ", "bold"), (f"{phase_label(phase)}…", "italic"))
            )
        elif phase == "planning" and not self.reviewing:
            self._notice("⋯ Revising the plan with your feedback…")

    def show_run_ended(self) -> None:
        """The run stopped before a plan was drafted: the pane no longer says it is coming."""
        if self.draft is None and self._planning:
            self._planning = False
            self.query_one("#plan-summary", Static).update(Text(NO_PLAN_YET, style="dim"))

    # ---- rendering ---------------------------------------------------------------------

    def _render_plan(self) -> None:
        if self.draft is None:
            return
        plan = self.draft.plan
        status = "awaiting your review" if self.reviewing else self.outcome
        summary = Text.assemble(
            ("Revision ", "dim"),
            str(self.revision),
            ("  ·  ", "dim"),
            (status, "bold" if self.reviewing else _OUTCOME_STYLES.get(status, "dim")),
        )
        if self.draft.changed or self.approved_edited:
            # On the status line: after the scope it read as part of the scope's last line.
            summary.append("  (edited)", style="italic yellow")
        unit_limit, requests, edited_before = self._limit
        over = (
            set(self.draft.over_limit(unit_limit, requests, edited_before))
            if self.reviewing
            else set()
        )
        if over:
            # Said where it is read first: the last tracks may be below the pane's bottom.
            tracks = "1 track" if len(over) == 1 else f"{len(over)} tracks"
            summary.append(f"  ·  {tracks} beyond the unit limit", style="bold yellow")
        self.query_one("#plan-summary", Static).update(summary)
        self._show_scope(plan.scope)
        container = self.query_one("#plan-tracks", Vertical)
        self._track_widgets = []
        for index, track in enumerate(plan.tracks):
            selected = self.reviewing and index == self.cursor
            # Each field wraps under its own text (a hanging indent), not at the left edge.
            lines = [
                (
                    Text.assemble(("▶ " if selected else "  "), (f"{index + 1}. ", "bold")),
                    Text(track.title, style="bold"),
                ),
                (Text.assemble("   ", ("section ", "dim")), Text(track.section)),
                (Text.assemble("   ", ("queries ", "dim")), Text(" | ".join(track.queries))),
            ]
            if index in over:
                limit = f"not researched: beyond the limit of {unit_limit} research units"
                lines.append((Text("   "), Text(limit, style="yellow")))
            skipped, why = self._unresearched
            if track.title in skipped and not self.reviewing:
                lines.append((Text("   "), Text(f"skipped — {why}", style="bold yellow")))
            self._track_widgets.append(
                HangingLines(lines, classes="track -selected" if selected else "track")
            )
        with self.app.batch_update():
            container.remove_children()
            container.mount_all(self._track_widgets)
        if self.reviewing and self._track_widgets:
            self.call_after_refresh(
                self._body.scroll_to_widget, self._track_widgets[self.cursor], animate=False
            )

    @property
    def _body(self) -> VerticalScroll:
        return self.query_one("#plan-body", VerticalScroll)

    def _show_scope(self, scope: str) -> None:
        widget = self.query_one("#plan-scope", HangingLines)
        widget.update([(Text("Scope: ", style="dim"), Text(scope))])
        widget.display = bool(scope)

    def _notice(self, text: str, *, error: bool = False) -> None:
        notice = self.query_one("#plan-notice", Static)
        notice.set_class(error, "-error")
        notice.update(Text(text))
        notice.display = bool(text)

    def _refused(self, result: EditResult) -> bool:
        if result.ok:
            self._notice("")
            return False
        self._notice(f"Not applied: {result.reason}", error=True)
        return True

    # ---- keyboard ----------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in _SCROLL_ACTIONS and not self.reviewing:
            # Out of review there is no cursor; the arrows scroll a pane too small for the
            # scope and every track.
            return self.draft is not None
        if action in _REVIEW_ACTIONS:
            return self.reviewing and self.draft is not None and self._editor is None
        if action == "undo":
            return (
                self.reviewing
                and self._editor is None
                and self.draft is not None
                and self.draft.can_undo
            )
        return True

    def action_cursor_up(self) -> None:
        if not self.reviewing:
            self._body.scroll_up(animate=False)
            return
        self.cursor = max(0, self.cursor - 1)
        self._render_plan()

    def action_cursor_down(self) -> None:
        if not self.reviewing:
            self._body.scroll_down(animate=False)
            return
        assert self.draft is not None
        self.cursor = min(len(self.draft.plan.tracks) - 1, self.cursor + 1)
        self._render_plan()

    def action_edit(self) -> None:
        assert self.draft is not None
        track = self.draft.plan.tracks[self.cursor]
        self._open_editor(
            TrackEditor(TrackFields.from_track(track), index=self.cursor, is_new=False)
        )

    def action_add(self) -> None:
        assert self.draft is not None
        room = self.draft.room_for_track()
        if not room.ok:  # said before anything is typed, not after
            self._notice(f"No track added: {room.reason}. Delete one first.", error=True)
            return
        position = self.cursor + 1 if self.draft.plan.tracks else 0
        self._open_editor(TrackEditor(TrackFields("", "", ""), index=position, is_new=True))

    def _open_editor(self, editor: TrackEditor) -> None:
        self._editor = editor
        container = self.query_one("#plan-tracks", Vertical)
        if editor.is_new:
            if editor.index < len(self._track_widgets):
                container.mount(editor, before=self._track_widgets[editor.index])
            else:
                container.mount(editor)
        else:
            self._track_widgets[editor.index].display = False
            container.mount(editor, after=self._track_widgets[editor.index])
        self.call_after_refresh(self._body.scroll_to_widget, editor, animate=False)
        self._notice("Enter applies the edit · Escape discards it · Tab moves between fields")
        self.refresh_bindings()
        self.post_message(self.Editing(True))

    def action_delete(self) -> None:
        assert self.draft is not None
        title = self.draft.plan.tracks[self.cursor].title
        if not self._refused(self.draft.delete_track(self.cursor)):
            self.cursor = min(self.cursor, len(self.draft.plan.tracks) - 1)
            self._render_plan()
            self._notice(f"Deleted track {title!r} · u undoes")
            self.refresh_bindings()

    def action_undo(self) -> None:
        assert self.draft is not None
        if self.draft.undo():
            self.cursor = min(self.cursor, len(self.draft.plan.tracks) - 1)
            self._render_plan()
            self._notice("Undone.")
            self.refresh_bindings()

    def action_move_up(self) -> None:
        self._move(-1)

    def action_move_down(self) -> None:
        self._move(1)

    def _move(self, offset: int) -> None:
        assert self.draft is not None
        if not self._refused(self.draft.move_track(self.cursor, offset)):
            self.cursor += offset
            self._render_plan()

    def action_approve(self) -> None:
        from engine.schemas import PlanDecision

        assert self.draft is not None
        if self.draft.changed:
            decision = PlanDecision(action="edit", plan=self.draft.plan)
        else:
            decision = PlanDecision(action="approve")
        self.post_message(self.Decided(decision))

    def action_revise(self) -> None:
        self.post_message(self.FeedbackWanted())

    def action_cancel_plan(self) -> None:
        from engine.schemas import PlanDecision

        self.post_message(self.Decided(PlanDecision(action="cancel")))

    def send_feedback(self, feedback: str) -> None:
        if feedback.strip():
            from engine.schemas import PlanDecision

            self.post_message(self.Decided(PlanDecision(action="revise", feedback=feedback)))

    # ---- the editor's verdicts -----------------------------------------------------------

    def on_track_editor_submitted(self, message: TrackEditor.Submitted) -> None:
        message.stop()
        assert self.draft is not None
        editor = message.editor
        if editor.is_new:
            result = self.draft.insert_track(editor.index, message.fields)
        else:
            result = self.draft.replace_track(editor.index, message.fields)
        if not result.ok:
            editor.show_refusal(result.reason)  # under the fields, once
            return
        self.cursor = editor.index
        self._close_editor("Track updated." if not editor.is_new else "Track added.")

    def on_track_editor_abandoned(self, message: TrackEditor.Abandoned) -> None:
        message.stop()
        self._close_editor("Edit discarded.")

    def _close_editor(self, note: str) -> None:
        if self._editor is not None:
            self._editor.remove()
        self._editor = None
        self._render_plan()
        self._notice(note)
        self.focus()
        self.refresh_bindings()
        self.post_message(self.Editing(False))
