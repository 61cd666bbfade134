"""A tiny corpus, and search/fetch outputs in the research tools' real formats."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Page:
    title: str
    locator: str
    text: str

    @property
    def is_url(self) -> bool:
        return self.locator.startswith("http")


CORPUS = [
    Page(
        "Coroutines and Tasks",
        "https://docs.example.org/asyncio-task.html",
        "Tasks are used to schedule coroutines concurrently. "
        "To cancel a running Task use the cancel() method. "
        "Calling it will cause the Task to throw a CancelledError exception into the wrapped "
        "coroutine. "
        "If a coroutine is awaiting on a Future object during cancellation, the Future object "
        "will be cancelled. "
        "The cancelled() method can be used to check if the Task was cancelled.",
    ),
    Page(
        "Task groups",
        "https://docs.example.org/taskgroups.html",
        "Task groups combine a task creation API with a convenient and reliable way to wait "
        "for all tasks in the group to finish. "
        "The first time any of the tasks belonging to the group fails with an exception other "
        "than CancelledError, the remaining tasks in the group are cancelled. "
        "Structured concurrency makes cancellation easier to reason about.",
    ),
    Page(
        "Timeouts",
        "timeouts.md",
        "The timeout() context manager can be used to limit the amount of time spent waiting "
        "on something. "
        "If a long running operation takes more time than allowed, the current task is "
        "cancelled and the exception is transformed into a TimeoutError. "
        "Timeouts interact with cancellation through the uncancel() method.",
    ),
    Page(
        "Event loop",
        "https://other.example.net/eventloop.html",
        "The event loop is the core of every asyncio application. "
        "Event loops run asynchronous tasks and callbacks, perform network IO operations, "
        "and run subprocesses.",
    ),
]


def search_output(query: str, pages: list[Page] = CORPUS) -> str:
    """`search_web`'s format: the pages sharing a word with the query, best first."""
    query_words = {w.lower().strip("?.,") for w in query.split()}
    ranked = sorted(
        pages,
        key=lambda p: -len(query_words & {w.lower().strip("?.,()") for w in p.text.split()}),
    )
    hits = [p for p in ranked if query_words & {w.lower().strip("?.,()") for w in p.text.split()}]
    if not hits:
        return f'No results for "{query}".'
    blocks = [f'Search results for "{query}":']
    for number, page in enumerate(hits[:3], start=1):
        label = "URL" if page.is_url else "Document"
        first_sentence = page.text.split(". ")[0] + "."
        blocks.append(f"[{number}] {page.title}\n{label}: {page.locator}\n{first_sentence}")
    return "\n\n".join(blocks)


def fetch_output(url: str) -> str:
    for page in CORPUS:
        if page.locator == url:
            return f"Fetched: {url}\nTitle: {page.title}\n\n{page.text}"
    return "Fetch failed: remote server returned HTTP 404"


def all_corpus_text() -> str:
    return " ".join(" ".join(p.text.split()) for p in CORPUS)


def all_locators() -> set[str]:
    return {p.locator for p in CORPUS}
