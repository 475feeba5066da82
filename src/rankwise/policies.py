"""Evaluation-wide policies: how ties are ordered, which queries are averaged, how deep rankings go.

Each policy has a name and a documented meaning; the defaults reproduce trec_eval.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from enum import Enum
from numbers import Integral

from .errors import RankwiseError


def threads() -> int:
    """How many threads rankwise's compiled passes (reading TREC text, ordering rankings, looking up grades) use:
    ``RANKWISE_THREADS`` when set (1: one thread), else every core this process may run on. Results do not depend on
    it: each line, query or row is read or computed by one thread, and the parts are put together in input order."""
    wanted = os.environ.get("RANKWISE_THREADS", "").strip()
    if wanted.isdigit() and int(wanted) >= 1:
        return int(wanted)
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


class TiePolicy(str, Enum):
    """Order of documents with equal scores within a query (scores always sort descending)."""

    DOCNO_DESC = "docno_desc"
    """Doc ids in descending byte order (trec_eval's ``strcmp``; the default)."""
    DOCNO_ASC = "docno_asc"
    """Doc ids in ascending byte order."""
    DOCNO_DESC_NUMERIC = "docno_desc_numeric"
    """Doc ids descending as numbers when they read as integers (item 10 before item 9), else as text (RePlay)."""
    INPUT_ORDER = "input_order"
    """The order in which the documents appear in the run (a stable sort)."""
    AVERAGE = "average"
    """The average over every order of each group of tied documents (scikit-learn, torchmetrics); defined for
    measures linear in per-rank values (P, R, DCG, nDCG, counts)."""


class QuerySet(str, Enum):
    """Which queries are evaluated and averaged."""

    INTERSECTION = "intersection"
    """Queries present in both qrels and run (trec_eval's default); others are counted and reported."""
    QRELS = "qrels"
    """Every judged query (trec_eval ``-c``): a query missing from the run is scored as an empty ranking (0)."""
    RUN = "run"
    """Every query of the run: a query without judgments has no relevant documents (scores 0)."""
    RELEVANT = "relevant"
    """Judged queries with at least one relevant document (grade >= rel_level); one missing from the run is
    scored as an empty ranking (RecBole: users with a positive test item)."""
    COMMON_RELEVANT = "common_relevant"
    """Queries in both qrels and run with at least one relevant document (Elliot: users with recommendations and
    a relevant test item); the others are counted and reported."""


class ScorePrecision(str, Enum):
    """Precision at which run scores are compared."""

    FLOAT64 = "float64"
    """Scores as read (the default)."""
    FLOAT32 = "float32"
    """Scores rounded to float32 first, so scores closer than float32 precision tie (pytrec_eval)."""


def parse_enum(cls: type[Enum], value: object, what: str) -> Enum:
    """``cls(value)``, or a :class:`RankwiseError` naming ``what`` and every allowed value."""
    try:
        return cls(value)
    except ValueError:
        allowed = ", ".join(m.value for m in cls)  # type: ignore[attr-defined]
        raise RankwiseError(f"unknown {what} {value!r}; choose one of {allowed}") from None


@dataclass(frozen=True)
class Policies:
    """All evaluation-wide settings.

    - ``ties``: :class:`TiePolicy` (default ``docno_desc``).
    - ``queries``: :class:`QuerySet` (default ``intersection``).
    - ``depth``: keep only the top ``depth`` documents of each ranking after sorting (trec_eval ``-M``).
    - ``rel_level``: default relevance threshold of every measure whose ``rel`` is not given (trec_eval ``-l``).
    - ``scores``: :class:`ScorePrecision` (default ``float64``).
    - ``judged_only``: remove the unjudged documents (not in the qrels, or graded below 0) from each ranking after
      the depth cut and before scoring, the others keeping their order (trec_eval ``-J``; the condensed lists of
      Sakai, SIGIR 2007). Default False.
    """

    ties: TiePolicy = TiePolicy.DOCNO_DESC
    queries: QuerySet = QuerySet.INTERSECTION
    depth: int | None = None
    rel_level: int = 1
    scores: ScorePrecision = ScorePrecision.FLOAT64
    judged_only: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.judged_only, bool) and type(self.judged_only).__name__ not in ("bool", "bool_"):  # numpy
            raise RankwiseError(f"judged_only must be True or False, got {self.judged_only!r}")
        object.__setattr__(self, "judged_only", bool(self.judged_only))
        object.__setattr__(self, "scores", parse_enum(ScorePrecision, self.scores, "score precision"))
        object.__setattr__(self, "ties", parse_enum(TiePolicy, self.ties, "tie policy"))
        object.__setattr__(self, "queries", parse_enum(QuerySet, self.queries, "query set"))
        if self.depth is not None:
            object.__setattr__(self, "depth", _whole_number(self.depth, "depth", "a positive integer", 1))
        object.__setattr__(self, "rel_level", _whole_number(self.rel_level, "rel_level", "an integer >= 0", 0))


def _whole_number(value: object, name: str, what: str, minimum: int) -> int:
    """``value`` as an int when it is an integer (Python or numpy, not bool) >= ``minimum``; anything else — a
    float such as 1.5 or even 2.0, a string, NaN — is refused, never truncated or converted."""
    if isinstance(value, bool) or not isinstance(value, Integral) or value < minimum:  # numpy's integers too
        raise RankwiseError(f"{name} must be {what}, got {value!r}")
    return int(value)
