"""The research roles of the offline model: the researcher's tool loop and the supervisor.

Researcher: search every query of its topic (parallel calls, one turn; a lookup question's
queries keep its code names), fetch the one or two results the searches rank best, then answer
with extractive notes. Supervisor: one `ConductResearch` per plan
track, `ResearchComplete` once each has an answer, broadened follow-ups when the quality gate
rejects, for a bounded number of rounds.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from engine.model_task import ModelTask
from engine.models.offline.conversation import Conversation, ToolSpec
from engine.models.offline.extract import answer_text, best_quotes, notes_text
from engine.models.offline.plan import search_phrase, subject_of
from engine.models.offline.reply import OfflineReply, make_calls
from engine.models.offline.sources import Source, SourcePool, parse_search_results
from engine.models.offline.text import content_words, is_code_name, score, terms
from engine.schemas import ResearchTrack

SEARCH_TOOL = "search_web"
FETCH_TOOL = "fetch_url"
MAX_SEARCHES = 5
MAX_FETCHES = 2
NOTES_SENTENCES = 6
ANSWER_SENTENCES = 5
MAX_FOLLOW_UP_ROUNDS = 2
MAX_SUPERVISOR_TURNS = 12
_RANK_K = 2
TOPIC_LABEL = "Research track:"
_QUERIES_RE = re.compile(r"^\s*Queries:\s*(?P<queries>\S.*)$", re.MULTILINE)
_TOPIC_RE = re.compile(r"^\s*Research track:\s*(?P<title>\S.*)$", re.MULTILINE)
_SECTION_RE = re.compile(r"^\s*Section:\s*(?P<section>\S.*)$", re.MULTILINE)


# ---- researcher ------------------------------------------------------------------------


@dataclass(frozen=True)
class ResearchTopic:
    """What a researcher was asked: a title and the queries to search."""

    title: str
    queries: tuple[str, ...]
    from_plan: bool
    # The report section the notes are for, when the topic names one.
    section: str = ""

    @property
    def scoring_text(self) -> str:
        """What its notes are ranked against: a plan track's queries (its title frames the
        section, "…: key differences", and names nothing to look for), else the question."""
        if self.from_plan:
            return " ".join(self.queries)
        return " ".join([self.title, *self.queries])

    @property
    def focus(self) -> str:
        """The words of its section that it also searches for: what its notes are about
        ("Locks"), not how the section is framed ("Key differences", "Overview")."""
        searched = terms(" ".join(self.queries))
        return " ".join(word for word in self.section.split() if terms(word) & searched)


def topic_of(task: ModelTask) -> ResearchTopic:
    """What a researcher or a quick answer is about: the plan track it was handed, else its
    topic in the offline supervisor's own format (`topic_text`), else the question."""
    if task.track is not None:
        track = task.track
        queries = tuple(track.queries[:MAX_SEARCHES])
        return ResearchTopic(track.title, queries, from_plan=True, section=track.section)
    # The newest labelled lines win: a follow-up topic may restate the track.
    text = task.topic
    queries_match = _last(_QUERIES_RE.finditer(text))
    title_match = _last(_TOPIC_RE.finditer(text))
    if queries_match is not None:
        queries = tuple(q.strip() for q in queries_match.group("queries").split(" | ") if q.strip())
        title = title_match.group("title").strip() if title_match else queries[0]
        section_match = _last(_SECTION_RE.finditer(text))
        section = section_match.group("section").strip() if section_match else ""
        return ResearchTopic(title, queries[:MAX_SEARCHES], from_plan=True, section=section)
    question = task.question or _first_line(text)[:400]
    subject = search_phrase(question) or question[:200]
    words = subject.split()
    derived = [subject]
    if len(words) > 3:
        # A narrower second search: the question's code names with its first other word,
        # else its first three words.
        names = [word for word in words if is_code_name(word)][:2]
        others = [word for word in words if word not in names]
        narrow = [word for word in words if word in names or word in others[:1]]
        derived.append(" ".join(narrow if names else words[:3]))
    return ResearchTopic(question, tuple(derived), from_plan=False)


def _last(matches: Iterator[re.Match[str]]) -> re.Match[str] | None:
    found = None
    for found in matches:  # noqa: B007 - only the last match is wanted
        pass
    return found


def _spec(tools: list[ToolSpec], name: str) -> ToolSpec | None:
    return next((tool for tool in tools if tool.name == name), None)


def research_turn(
    conversation: Conversation, tools: list[ToolSpec], topic: ResearchTopic, *, can_call: bool
) -> OfflineReply:
    """Next researcher step: search, fetch, or answer with cited extractive notes."""
    pool = SourcePool()
    for name, content in conversation.tool_outputs():
        pool.add_tool_output(name, content)
    calls = conversation.past_calls()
    turn = conversation.ai_turns

    search = _spec(tools, SEARCH_TOOL) if can_call else None
    if search is not None:
        argument = search.first_string_argument(("query", "q"))
        searched = {str(c.args.get(argument, "")) for c in calls if c.name == SEARCH_TOOL}
        budget = MAX_SEARCHES - sum(c.name == SEARCH_TOOL for c in calls)
        pending = [q for q in topic.queries if q not in searched][: max(budget, 0)]
        if pending:
            return OfflineReply(
                tool_calls=make_calls(turn, [(SEARCH_TOOL, {argument: q}) for q in pending]),
                role="researcher",
            )

    fetch = _spec(tools, FETCH_TOOL) if can_call else None
    if fetch is not None and not any(c.name == FETCH_TOOL for c in calls):
        argument = fetch.first_string_argument(("url",))
        # URLs and document keys alike: fetch_url reads a local document in full by its key.
        chosen = fetch_choice(pool, conversation.tool_outputs(), topic)[:MAX_FETCHES]
        if chosen:
            return OfflineReply(
                tool_calls=make_calls(turn, [(FETCH_TOOL, {argument: s.locator}) for s in chosen]),
                role="researcher",
            )

    return final_answer(conversation, topic, pool, notes=_writes_notes(tools, topic))


def search_ranks(tool_outputs: list[tuple[str, str]]) -> dict[str, float]:
    """Each source's standing across every search: the sum over searches of 1 / (k + rank).

    The search engine ranked each page against the whole of its text; a page several searches
    put near the top is the likeliest to hold the answer (reciprocal rank fusion, k = 2).
    """
    fused: dict[str, float] = {}
    for name, content in tool_outputs:
        if name == FETCH_TOOL or content.startswith("Fetched:"):
            continue
        seen: list[str] = []
        for source in parse_search_results(content):
            if source.locator not in seen:
                seen.append(source.locator)
        for rank, locator in enumerate(seen, start=1):
            fused[locator] = fused.get(locator, 0.0) + 1.0 / (_RANK_K + rank)
    return fused


def fetch_choice(
    pool: SourcePool, tool_outputs: list[tuple[str, str]], topic: ResearchTopic
) -> list[Source]:
    """Unread sources, the best to read first: by the searches' ranking of them, then by how
    well what was seen of them (passages and title) matches the topic."""
    query_terms = terms(topic.scoring_text)
    ranks = search_ranks(tool_outputs)
    unread = [s for s in pool.sources if not s.fetched]
    return sorted(
        unread,
        key=lambda s: (
            -ranks.get(s.locator, 0.0),
            -score(terms(s.text + " " + s.title), query_terms, {}),
        ),
    )


def _writes_notes(tools: list[ToolSpec], topic: ResearchTopic) -> bool:
    """Deep researchers (planning tools bound, or a plan topic) write notes; quick answers don't."""
    names = {tool.name for tool in tools}
    return topic.from_plan or bool(names & {"think_tool", "write_todos"})


def final_answer(
    conversation: Conversation, topic: ResearchTopic, pool: SourcePool, *, notes: bool
) -> OfflineReply:
    if notes:
        quotes = best_quotes(
            pool.sources, topic.scoring_text, limit=NOTES_SENTENCES, focus=topic.focus
        )
        return OfflineReply(content=notes_text(quotes), role="researcher")
    quotes = best_quotes(pool.sources, topic.scoring_text, limit=ANSWER_SENTENCES)
    heading = " ".join(topic.title.split())[:200] or "Answer"
    return OfflineReply(content=answer_text(heading, quotes), role="quick")


def answer_from_tools(conversation: Conversation, topic: ResearchTopic) -> OfflineReply:
    """An answer with no tools bound (budget spent, or a summarising call over tool output)."""
    pool = SourcePool()
    for name, content in conversation.tool_outputs():
        pool.add_tool_output(name, content)
    return final_answer(conversation, topic, pool, notes=topic.from_plan)


# ---- supervisor ------------------------------------------------------------------------


def _first_line(topic: str) -> str:
    return topic.strip().split("\n", 1)[0].strip()


def topic_text(track: ResearchTrack, follow_up_round: int = 0) -> str:
    """A `ConductResearch` topic the researcher role parses back (`Research track:`, `Queries:`)."""
    title = track.title if follow_up_round == 0 else f"{track.title} (follow-up {follow_up_round})"
    return "\n".join(
        [
            f"{TOPIC_LABEL} {title}",
            f"Section: {track.section}",
            "Queries: " + " | ".join(track.queries),
        ]
    )


def broadened(track: ResearchTrack, follow_up_round: int, used: set[str]) -> ResearchTrack | None:
    """The track with wider queries never searched before (fewer words, then single words).

    `used` holds every query already planned (lower-cased) and is extended with the new ones;
    None when the track has nothing new left to search.
    """
    found: list[str] = []
    for query in track.queries:
        tokens = content_words(query) or query.lower().split()
        if follow_up_round == 1:
            variants = [" ".join(tokens[:-1]) if len(tokens) > 1 else tokens[0]]
            variants.append(" ".join(tokens[1:]) if len(tokens) > 2 else "")
        else:
            # Anchor single aspect words to the query's first word so they stay on topic.
            variants = [tokens[0], *(f"{tokens[0]} {token}" for token in tokens[2:])]
        for variant in variants:
            if variant and variant.lower() not in used:
                used.add(variant.lower())
                found.append(variant)
    if not found:
        return None
    return ResearchTrack(title=track.title, section=track.section, queries=found[:3])


def follow_up_topics(tracks: list[ResearchTrack], rounds: int) -> list[str]:
    """Topics of every follow-up round so far; recomputed identically on every turn."""
    used = {query.lower() for track in tracks for query in track.queries}
    topics: list[str] = []
    for round_number in range(1, rounds + 1):
        for track in tracks:
            wider = broadened(track, round_number, used)
            if wider is not None:
                topics.append(topic_text(wider, round_number))
    return topics


def _plan_tracks(task: ModelTask) -> list[ResearchTrack]:
    if task.plan is not None and task.plan.tracks:
        return list(task.plan.tracks)
    question = task.question
    subject = subject_of(question) or question[:200] or "the question"
    return [ResearchTrack(title=subject, section=subject, queries=[subject])]


def supervisor_turn(
    conversation: Conversation, tools: list[ToolSpec], task: ModelTask
) -> OfflineReply:
    """Dispatch every track once, finish, and broaden after each gate rejection (bounded)."""
    names = {tool.name for tool in tools}
    tracks = _plan_tracks(task)
    calls = [c for c in conversation.past_calls() if c.name == "ConductResearch"]
    # This supervisor never calls ResearchComplete beside ConductResearch, so every answer to
    # it that leaves research going on is a rejection by the quality gate.
    rejections = sum(
        c.answer is not None for c in conversation.past_calls() if c.name == "ResearchComplete"
    )
    turn = conversation.ai_turns

    # The engine researches the plan's tracks itself and says which; the rest, and the
    # follow-ups, are this supervisor's own topics, each known by its first line.
    researched = set(task.researched_tracks)
    wanted = [topic_text(track) for i, track in enumerate(tracks) if i not in researched]
    wanted += follow_up_topics(tracks, min(rejections, MAX_FOLLOW_UP_ROUNDS))
    researched_calls = set(task.researched_calls)
    done = {
        _first_line(str(c.args.get("research_topic", "")))
        for c in calls
        if c.id in researched_calls
    }
    pending = [topic for topic in wanted if _first_line(topic) not in done]

    if rejections > MAX_FOLLOW_UP_ROUNDS and conversation.last_answered() == "ResearchComplete":
        # Out of follow-up rounds: stop asking; the graph moves on with what it has.
        return OfflineReply(
            content="Research is complete with the evidence gathered.", role="supervisor"
        )
    if pending and turn < MAX_SUPERVISOR_TURNS and "ConductResearch" in names:
        return OfflineReply(
            tool_calls=make_calls(
                turn, [("ConductResearch", {"research_topic": topic}) for topic in pending]
            ),
            role="supervisor",
        )
    if "ResearchComplete" in names:
        return OfflineReply(
            tool_calls=make_calls(turn, [("ResearchComplete", {})]), role="supervisor"
        )
    return OfflineReply(content="Research is complete.", role="supervisor")
