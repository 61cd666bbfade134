"""The deepresearch terminal app: screens, global keys, the command palette, the engine link.

Importing this module loads Textual and the app's own light modules only: the event models,
settings and Markdown load after the first frame, and the engine's LangChain stack is imported
by `EngineBackend` inside workers.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from functools import partial
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, Any, ClassVar

from textual import work
from textual.app import App, SystemCommand
from textual.binding import Binding, BindingType
from textual.screen import Screen

from tui.link.engine_link import EngineLink
from tui.presentation.failures import describe_failure
from tui.screens.research import ResearchScreen
from tui.widgets.mode_toggle import ModeToggle
from tui.widgets.plan_pane import PlanPane

if TYPE_CHECKING:
    from tui.link.backend import Backend, LocalModelOffer
    from tui.screens.sessions import SessionChoice, SessionsScreen
    from tui.screens.settings import SettingsScreen

# A command palette entry: its title, what it does, and what runs it.
Command = tuple[str, str, Callable[[], object]]


class DeepResearchApp(App[int]):
    TITLE = "deepresearch"
    # The default screen is installed without loading its own CSS_PATH, so the app loads it.
    # The detail windows' (citation, unit, record, audit), the sessions list's and the settings'
    # load here too, though their code loads when first opened: a screen's own stylesheet,
    # read as it opens, restyles every widget of the app, the report's included, which made
    # the first Enter on a citation lag and F2 take 80 ms or more.
    CSS_PATH: ClassVar[list[str | PurePath]] = [
        Path(__file__).with_name("app.tcss"),
        Path(__file__).parent / "screens" / "research" / "research.tcss",
        Path(__file__).parent / "screens" / "detail.tcss",
        Path(__file__).parent / "screens" / "sessions.tcss",
        Path(__file__).parent / "screens" / "settings.tcss",
    ]
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("f1", "help", "Help", id="app.help"),
        Binding("f2", "sessions", "Sessions", id="app.sessions"),
        Binding("f3", "settings", "Settings", id="app.settings"),
        Binding("ctrl+n", "new_session", "New", id="app.new_session"),
        Binding("ctrl+t", "toggle_mode", "Mode", id="app.toggle_mode"),
        Binding("ctrl+r", "resume", "Resume", id="app.resume"),
        # With nothing on screen to resume the key still works, as help says: it asks which
        # session (the footer offers it only while there is something to resume).
        Binding("ctrl+r", "choose_resume", "Resume", show=False, id="app.choose_resume"),
        # Priority: an input's own ctrl+x (cut) must not swallow the cancel key.
        Binding("ctrl+x", "cancel_run", "Cancel run", priority=True, id="app.cancel_run"),
        Binding("f10", "zoom", "Zoom", priority=True, id="app.zoom"),
        Binding("f4", "use_local_model", "Use local model", id="app.use_local_model"),
    ]

    def __init__(
        self,
        backend: Backend | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
        export_dir: Path | None = None,
        discover_local_models: bool = False,
    ) -> None:
        super().__init__()
        # Look for a model server on this machine's usual ports after the first frame (only
        # with no endpoint configured; the backend decides). Off unless the entry point asks.
        self.discover_local_models = discover_local_models
        self.local_offer: LocalModelOffer | None = None
        if backend is None:
            from tui.link.engine_backend import EngineBackend

            backend = EngineBackend()
        self.backend = backend
        self.clock = clock
        # None: the backend's export folder (EXPORT_DIR, else `exports` in the data dir).
        self.export_dir = export_dir
        self.link = EngineLink(self, backend)

    def on_mount(self) -> None:
        if self.discover_local_models:
            self.call_after_refresh(self._look_for_local_models)

    @work(exclusive=True, group="local-models", name="local-models")
    async def _look_for_local_models(self) -> None:
        try:
            offers = await self.backend.local_model_offers()
        except Exception:  # a look that fails finds nothing; it must never stop the app
            return
        if offers:
            from tui.host.local_model import offer_message

            self.local_offer = offers[0]
            self.refresh_bindings()
            self.notify(offer_message(offers[0], len(offers) - 1), timeout=30, markup=False)

    def action_use_local_model(self) -> None:
        offer = self.local_offer
        if offer is None:
            return
        from tui.host.local_model import take_offer, taken_message

        try:
            path = take_offer(self.backend, offer)
        except OSError as error:
            message = f"Could not write the settings file: {error.strerror}"
            self.notify(message, severity="error", markup=False)
            return
        self.local_offer = None
        self.refresh_bindings()
        self.notify(taken_message(offer, path), markup=False)

    def get_default_screen(self) -> Screen[Any]:
        return ResearchScreen(self.link, clock=self.clock, export_dir=self.export_dir)

    @property
    def research(self) -> ResearchScreen:
        screen = self.screen_stack[0]
        assert isinstance(screen, ResearchScreen)
        return screen

    # ---- global actions ------------------------------------------------------------------

    # Each screen's module (Markdown, tables, settings) loads the first time it is opened.

    def action_help(self) -> None:
        from tui.screens.help import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())

    def action_sessions(self) -> None:
        from tui.screens.sessions import SessionsScreen

        if not isinstance(self.screen, SessionsScreen):
            on_screen = self.research.view.session_id or self.link.session_id
            self.push_screen(
                SessionsScreen(self.backend, on_screen=on_screen), self._session_chosen
            )

    def action_settings(self) -> None:
        from tui.screens.settings import SettingsScreen

        if not isinstance(self.screen, SettingsScreen):
            self.push_screen(SettingsScreen(self.backend))

    def action_new_session(self) -> None:
        if self.link.running:
            self._ask_to_stop_run("start a new session", self._new_session)
            return
        self._new_session()

    def _new_session(self) -> None:
        self.link.close()
        self.research.reset()
        self.link.open(None)
        self.research.query_one("#question").focus()

    def action_toggle_mode(self) -> None:
        self.research.query_one(ModeToggle).cycle()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if not self.screen_stack:
            return True
        screen = self.screen_stack[0]
        if action == "resume":
            # Shown (and bound) only when the session on screen stopped, failed or was
            # cancelled; the palette's "Resume run" asks which session otherwise.
            return isinstance(screen, ResearchScreen) and screen.view.resumable
        if action == "cancel_run":
            return self.link.running
        if action == "zoom":
            return self.screen is screen  # not over a modal or another screen
        if action == "use_local_model":
            return self.local_offer is not None
        return True

    def action_zoom(self) -> None:
        self.research.toggle_zoom()

    def action_resume(self) -> None:
        if self.link.running:
            self.notify("The run is still going.", severity="warning")
            return
        if not self.research.view.resumable:
            # Nothing on screen to resume: ask which session, never pick one silently.
            self.notify("Choose the session to resume.")
            self.action_sessions()
            return
        self.research.resume()

    def action_choose_resume(self) -> None:
        self.action_resume()

    def action_cancel_run(self) -> None:
        if not self.link.running:
            self.notify("No run in progress.")
            return
        # In a worker: the engine winds down while the app keeps handling keys.
        self.run_worker(self.link.cancel(), name="cancel-run", group="cancel", exclusive=True)

    def action_plan(self, action: str) -> None:
        """Plan review from the command palette: the same actions as the Plan pane's keys."""
        pane = self.research.query_one(PlanPane)
        if pane.check_action(action, ()):
            getattr(pane, f"action_{action}")()
        else:
            self.notify("No plan is waiting for review.", severity="warning")

    def action_report(self, action: str) -> None:
        screen = self.research
        if screen.view.report is None:
            self.notify("No report yet.", severity="warning")
            return
        {"audit": screen.open_audit, "export": screen.export_report, "copy": screen.copy_report}[
            action
        ]()

    def on_settings_screen_saved(self, _: SettingsScreen.Saved) -> None:
        self.link.use_new_settings()
        self.research.read_settings()

    def on_sessions_screen_deleted(self, message: SessionsScreen.Deleted) -> None:
        """The session on screen was deleted: clear the screen instead of showing a ghost."""
        deleted = message.session_id
        if deleted in (self.research.view.session_id, self.link.session_id):
            self._new_session()

    def _session_chosen(self, choice: SessionChoice | None) -> None:
        if choice is None:
            return
        if not self.link.running:
            self.reopen_session(choice)
        elif choice.session.session_id in (self.research.view.session_id, self.link.session_id):
            self.notify("This session is running on screen.")
        else:
            self._ask_to_stop_run("open another session", lambda: self.reopen_session(choice))

    def _ask_to_stop_run(self, to_do: str, then: Callable[[], object]) -> None:
        """Leaving a running session stops its run: never silently. Ask, then stop it."""
        from tui.presentation.formatting import one_line
        from tui.screens.confirm import ConfirmScreen

        running = one_line(self.research.view.question, 160) or "this session"

        def answered(stop: bool | None) -> None:
            if stop:
                self._stop_run_then(then)
            else:
                self.notify("The run goes on.")

        self.push_screen(
            ConfirmScreen(
                "Stop the running session?",
                f"A run is in progress: {running}\n\nTo {to_do}, its run stops here. It stays "
                "saved: ctrl+r or Sessions (F2) resumes it. Stop it?",
            ),
            answered,
        )

    @work(exclusive=True, group="cancel", name="stop-run")
    async def _stop_run_then(self, then: Callable[[], object]) -> None:
        # As ctrl+x does: the engine records the session as cancelled, resumable.
        await self.link.cancel()
        then()

    @work(exclusive=True, group="reports", name="reopen-session")
    async def reopen_session(self, choice: SessionChoice) -> None:
        """Show a saved session whole (its stored events), then resume it if it was chosen so."""
        session = choice.session
        try:
            events = await self.backend.load_session(session.session_id)
        except Exception as error:
            self.notify(
                f"Could not open the session: {describe_failure(error)}",
                severity="error",
                markup=False,
            )
            return
        self.link.close()
        screen = self.research
        screen.reset()
        self.link.session_id = session.session_id
        screen.view.session_id = session.session_id
        screen.view.question = session.question
        if events:
            from tui.view.elapsed import stored_elapsed

            elapsed = stored_elapsed(events, session.created_at, session.updated_at)
            screen.replay(events, elapsed=elapsed)
        if choice.action == "resume":
            screen.show_note(f"Resuming: {session.question}")
            screen.resume()
        elif not events:
            self.notify("This session has no saved report.", severity="warning")
        else:
            screen.show_note(f"Reopened: {session.question}")

    # ---- command palette -----------------------------------------------------------------

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        """Every command that can act now: plan review only while a plan waits for it, the
        report's only once there is a report, cancel only while a run goes."""
        yield from super().get_system_commands(screen)
        commands: list[Command] = [
            ("Help", "Keys and how a session works", self.action_help),
            ("Sessions", "Reopen a report or resume a run", self.action_sessions),
            ("Settings", "Doctor report and first-run setup", self.action_settings),
            ("New session", "Clear the panes and start fresh", self.action_new_session),
            ("Toggle research mode", "auto → quick → deep", self.action_toggle_mode),
            ("Resume run", "Continue the run on screen, or choose one", self.action_resume),
            ("Zoom pane", "The focused pane fills the screen (F10)", self.action_zoom),
        ]
        if self.link.running:
            commands.append(
                ("Cancel run", "Stop the run; the session stays resumable", self.action_cancel_run)
            )
        commands += self._plan_commands() + self._report_commands()
        for title, help_text, callback in commands:
            yield SystemCommand(title, help_text, callback)

    def _plan_commands(self) -> list[Command]:
        pane = self.research.query_one(PlanPane)
        plan_actions = (
            ("Approve plan", "Start research with the plan as shown", "approve"),
            ("Revise plan", "Send the plan back with feedback", "revise"),
            ("Cancel plan", "Stop at plan review", "cancel_plan"),
            ("Edit plan track", "Edit the selected track in place", "edit"),
            ("Add plan track", "Insert a track after the selected one", "add"),
            ("Delete plan track", "Remove the selected track", "delete"),
        )
        return [
            (title, help_text, partial(self.action_plan, action))
            for title, help_text, action in plan_actions
            if pane.check_action(action, ())
        ]

    def _report_commands(self) -> list[Command]:
        if self.research.view.report is None:
            return []
        return [
            (
                "Verification audit",
                "Kept and removed citations",
                partial(self.action_report, "audit"),
            ),
            (
                "Export report",
                "Write the report as Markdown, HTML, PDF or Word",
                partial(self.action_report, "export"),
            ),
            (
                "Copy report",
                "Copy the report to the clipboard",
                partial(self.action_report, "copy"),
            ),
        ]

    # ---- shutdown ------------------------------------------------------------------------

    async def on_unmount(self) -> None:
        # Quitting mid-run cancels the engine worker; the checkpointed session stays resumable.
        self.link.close()


def run_app() -> int:
    result = DeepResearchApp(discover_local_models=True).run()
    return result if isinstance(result, int) else 0
