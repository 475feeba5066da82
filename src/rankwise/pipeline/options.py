"""The evaluation options as one value: what :func:`rankwise.evaluate` takes besides ``qrels``, ``run`` and
``measures`` (policies, a dialect, cutoffs, how to read the inputs, side inputs), held once so that
:func:`rankwise.compare`, :func:`rankwise.compare_dialects` and :func:`rankwise.spark.evaluate` pass them on as they
are instead of listing every keyword again.

The value keeps each option as given: building it checks nothing, so an error comes where and when it always came.
:meth:`EvaluationOptions.plan` checks the dialect, the rating threshold, the policies, the cutoffs and the grades (in
this order, with the measures between the cutoffs and the grades), and the inputs (``subtopics``, ``train``,
``features``, ``baseline``, ``item_groups``, the columns, ``stream``) are checked as they are read. Its validated
form is the :class:`rankwise.pipeline.plan.Plan` (and the loaded inputs).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..dialects import Dialect
from ..io.table import Grades
from ..policies import QuerySet, ScorePrecision, TiePolicy
from .plan import MeasureLike, Plan, make_plan

if TYPE_CHECKING:  # the options are read without the engine (help, explain)
    from .partitioned import Progress


@dataclass(frozen=True)
class EvaluationOptions:
    """The keyword options of :func:`rankwise.evaluate`, as given (None: not given, the dialect's or trec_eval's
    default applies). Fields in the order of :func:`rankwise.evaluate`'s keywords."""

    dialect: str | Dialect | None = None
    """``NAME[@VERSION]`` (``"lightgbm"``, ``"ranx@0.3"``) or a :class:`rankwise.dialects.Dialect`: each measure
    means what that library computes, and every parameter and policy not given is the dialect's."""
    ties: TiePolicy | str | None = None
    """Order of documents with equal scores (:class:`rankwise.policies.TiePolicy`; trec_eval: ``docno_desc``)."""
    queries: QuerySet | str | None = None
    """Which queries are evaluated and averaged (:class:`rankwise.policies.QuerySet`; trec_eval: ``intersection``,
    ``qrels`` is trec_eval ``-c``)."""
    depth: int | None = None
    """Keep only the top ``depth`` documents of each ranking (trec_eval ``-M``)."""
    judged_only: bool | None = None
    """Remove unjudged documents from each ranking before scoring (trec_eval ``-J``; condensed lists)."""
    rel_level: int = 1
    """Relevance threshold of every measure whose ``rel`` is not given (trec_eval ``-l``)."""
    scores: ScorePrecision | str | None = None
    """Precision run scores are compared at (:class:`rankwise.policies.ScorePrecision`: ``float64``, or ``float32``
    as pytrec_eval)."""
    cutoffs: Iterable[int] | None = None
    """Each measure written without a cutoff gets each of these (``nDCG`` → ``nDCG@10``, ``nDCG@20``)."""
    threshold: float | None = None
    """Qrels values are ratings: relevant when rating >= threshold (under a dialect with graded ratings, Elliot,
    the ratings stay the grades and the threshold is the rel_level)."""
    grades: Grades | None = None
    """How qrels values are read: ``"integer"`` grades (trec_eval) or ``"real"``-valued ones (an LLM judge's 0.73)."""
    qrels_columns: Mapping[str, str] | None = None
    """Column names of tabular qrels (query, document, grade or rating); by default found by name."""
    run_columns: Mapping[str, str] | None = None
    """Column names of a tabular run (query, document, score or rank); by default found by name."""
    train: Any = None
    """Training interactions (a table or path with user and item columns, or ``{user: [items]}``): each user's
    candidates are the catalogue minus them (Elliot's AUC family; the beyond-accuracy measures read them too)."""
    catalog: int | Iterable[str] | None = None
    """The number of items, or the items (by default those seen in ``train``)."""
    subtopics: Any = None
    """Subtopic judgments (TREC Web track diversity qrels: a path, a table or ``{query: {subtopic: {doc: grade}}}``)
    for the intent-aware measures; with ``qrels=None`` or the same file, the ordinary judgments too."""
    features: Any = None
    """Item features (a table or CSV/TSV/parquet file: an item id column and numeric columns) for ILD and
    Serendipity with ``kind=feature_*``."""
    baseline: Any = None
    """Another model's lists, as a run, for Unexpectedness, RBO and LIP."""
    item_groups: Any = None
    """Item groups for AWRF, RSP and REO (:func:`rankwise.pipeline.groups.read_item_groups`): ``{item_id: label}``, a
    table, ``"FILE:COLUMN"``, or ``"popularity"`` (head / tail of the training items, as LongTail splits them)."""
    groups: Any = None
    """User (query) groups the per-query values are split by (:mod:`rankwise.pipeline.groups`): ``{query_id: label}``,
    a table, ``"FILE:COLUMN"``, or ``"activity"`` (training interactions per user: cold / regular / heavy)."""
    samples: bool | str | None = None
    """Sampled rankings for the expected-exposure measures (:mod:`rankwise.pipeline.samples`): True (a TREC run's
    second field names the sample) or a tabular run's sample column."""
    stream: bool | None = None
    """Evaluate a run file in partitions read in blocks (runs larger than memory); None: for large run files."""
    progress: Progress | None = None
    """Called as ``progress(stage, done, total)`` while a streamed run is read and computed."""

    @classmethod
    def from_arguments(cls, arguments: Mapping[str, Any]) -> EvaluationOptions:
        """The options among the arguments of a call (``locals()`` on entering a function whose keywords are
        options, or a ``**options`` mapping): every field named there, the others at their defaults; names that
        are not options (``qrels``, ``run``, ``measures``, a function's own keywords) are left out."""
        return cls(**{field.name: arguments[field.name] for field in OPTION_FIELDS if field.name in arguments})

    def keywords(self) -> dict[str, Any]:
        """The options that are set (not None), as keyword arguments of :func:`rankwise.evaluate` and
        :func:`rankwise.compare` (``rel_level`` always)."""
        return {field.name: value for field in OPTION_FIELDS if (value := getattr(self, field.name)) is not None}

    def plan(self, measures: MeasureLike | Iterable[MeasureLike] | None) -> Plan:
        """The plan of evaluating ``measures`` with these options (:func:`rankwise.pipeline.plan.make_plan`): where
        the dialect, rating threshold, policies, cutoffs, measures and grades are checked, in this order."""
        return make_plan(measures, self.dialect, cutoffs=self.cutoffs, threshold=self.threshold, grades=self.grades,
                         rel_level=self.rel_level, ties=self.ties, queries=self.queries, depth=self.depth,
                         scores=self.scores, judged_only=self.judged_only)  # fmt: skip


OPTION_FIELDS = dataclasses.fields(EvaluationOptions)
"""The fields of :class:`EvaluationOptions`, in order."""

OPTION_NAMES = tuple(field.name for field in OPTION_FIELDS)
"""The names of the evaluation options, in the order of :func:`rankwise.evaluate`'s keywords."""

__all__ = ["OPTION_NAMES", "EvaluationOptions"]
