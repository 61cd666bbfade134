"""Local search quality: where the page that answers each eval question ranks.

For every question of the eval sets (`tests/fixtures/eval/`), the local index over the set's
pages is searched with the question as a person asked it, and the rank of the first result
from a page the question's `expected.sources` names is read. Columns: questions, how many
have their page first (hit@1), in the first three and five, and the mean reciprocal rank.
The dev sets are the ones ranking changes are tuned on; `--holdout` runs the sets nobody
reads while working instead.

    uv run python bench/retrieval.py [--holdout] [--verbose]
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from engine.config import SAMPLE_CORPUS  # noqa: E402
from engine.tools.local_index import LocalIndex  # noqa: E402

EVAL = ROOT / "tests" / "fixtures" / "eval"
DEV_SETS = {
    "docs_samples": SAMPLE_CORPUS,
    "git_dev": EVAL / "git_pages",
    "postgres_dev": EVAL / "postgres_pages",
}
HOLDOUT_SETS = {
    f"{name}_holdout": EVAL / f"{name}_pages"
    for name in ("git", "postgres", "httpd", "fastify", "nodejs", "pino", "sqlite", "undici")
}
RESULTS = 10


@dataclass
class Score:
    questions: int = 0
    at_1: int = 0
    at_3: int = 0
    at_5: int = 0
    reciprocal: float = 0.0

    def add(self, rank: int | None) -> None:
        self.questions += 1
        if rank is not None:
            self.at_1 += rank <= 1
            self.at_3 += rank <= 3
            self.at_5 += rank <= 5
            self.reciprocal += 1 / rank

    def row(self, name: str) -> str:
        mrr = self.reciprocal / self.questions if self.questions else 0.0
        return (
            f"{name:<18} {self.questions:>9} {self.at_1:>6} {self.at_3:>6} {self.at_5:>6} "
            f"{mrr:>6.3f}"
        )


def page_rank(index: LocalIndex, question: str, expected: set[str]) -> int | None:
    """The rank, among the distinct pages found, of the first page `expected` names."""
    pages: list[str] = []
    for hit in index.search(question, RESULTS):
        if hit.document_key not in pages:
            pages.append(hit.document_key)
    return next(
        (
            n
            for n, key in enumerate(pages, start=1)
            if Path(key).name in expected or key in expected
        ),
        None,
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--holdout", action="store_true", help="the hold-out sets instead")
    parser.add_argument("--verbose", action="store_true", help="each question's rank")
    args = parser.parse_args()
    sets = HOLDOUT_SETS if args.holdout else DEV_SETS
    work = Path(tempfile.mkdtemp(prefix="bench-retrieval-"))
    header = f"{'set':<18} {'questions':>9} {'hit@1':>6} {'hit@3':>6} {'hit@5':>6} {'MRR':>6}"
    lines = [header, "-" * len(header)]
    total = Score()
    try:
        for name, folder in sets.items():
            index = LocalIndex(work / f"{name}.sqlite", folder)
            index.refresh()
            score = Score()
            for line in (EVAL / f"{name}.jsonl").read_text(encoding="utf-8").splitlines():
                if not line.strip():
                    continue
                item = json.loads(line)
                rank = page_rank(index, item["question"], set(item["expected"]["sources"]))
                score.add(rank)
                total.add(rank)
                if args.verbose:
                    print(f"{name} {item['id']}: {rank or '-'}", file=sys.stderr)
            lines.append(score.row(name))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    lines.append(total.row("all"))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
