"""The Python API: ``rankwise.evaluate(qrels, run, measures, **policies)`` — resolve, load, align and compute,
report (:mod:`rankwise.pipeline`)."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ..dialects import Dialect
from ..errors import InputError
from ..io.blocks import streamable
from ..io.interactions import read_interactions
from ..io.subtopics import load_subtopic_qrels
from ..io.table import DOCID, Grades
from ..kernels.intent import refuse_without_subtopics
from ..policies import QuerySet, ScorePrecision, TiePolicy
from .compute import compute_groups
from .groups import item_group_notes, read_item_groups
from .load import load_inputs, load_side_inputs
from .options import EvaluationOptions
from .partitioned import Progress, compute_in_partitions
from .plan import MeasureLike
from .result import EvaluationResult, assemble
from .routed import evaluate_streamed
from .samples import refuse_unsampled, sampled_frame, sampled_inputs, sampled_note


def evaluate(
    qrels: Any,
    run: Any,
    measures: MeasureLike | Iterable[MeasureLike] | None = None,
    *,
    dialect: str | Dialect | None = None,
    ties: TiePolicy | str | None = None,
    queries: QuerySet | str | None = None,
    depth: int | None = None,
    judged_only: bool | None = None,
    rel_level: int = 1,
    scores: ScorePrecision | str | None = None,
    cutoffs: Iterable[int] | None = None,
    threshold: float | None = None,
    grades: Grades | None = None,
    qrels_columns: Mapping[str, str] | None = None,
    run_columns: Mapping[str, str] | None = None,
    train: Any = None,
    catalog: int | Iterable[str] | None = None,
    subtopics: Any = None,
    features: Any = None,
    baseline: Any = None,
    item_groups: Any = None,
    groups: Any = None,
    samples: bool | str | None = None,
    stream: bool | None = None,
    progress: Progress | None = None,
) -> EvaluationResult:
    """Evaluate ``run`` against ``qrels`` with ``measures`` (default: trec_eval's ``official`` set).

    ``qrels`` and ``run`` may be paths (TREC, ``.gz``, CSV/TSV/parquet), DataFrames (polars, pandas),
    pyarrow tables or ``{query_id: {doc_id: value}}`` dicts. Policies: ``ties`` (``docno_desc`` as
    trec_eval, ``docno_asc``, ``input_order``: the order of the rows as given — a file's lines, a DataFrame's or
    Arrow table's rows, a dict's insertion order; a Spark DataFrame has none, see ``order_column`` of
    :func:`rankwise.spark.evaluate`), ``queries`` (``intersection`` as trec_eval, ``qrels`` =
    trec_eval ``-c``, ``run``), ``depth`` (trec_eval ``-M``), ``judged_only`` (trec_eval ``-J``: unjudged
    documents removed before scoring, the condensed lists of Sakai 2007), ``rel_level`` (trec_eval ``-l``), ``scores``
    (``float64``, or ``float32`` as pytrec_eval). ``dialect`` (``"lightgbm"``, ``"ranx@0.3"``, see
    ``rankwise.dialects``) makes each measure name mean what that library computes: it fills in every
    parameter and policy not given explicitly. ``cutoffs=[10, 20]`` gives every measure written without a
    cutoff each of these (``nDCG`` → ``nDCG@10``, ``nDCG@20``). ``threshold`` reads qrels values as
    ratings (recommendation ground truth): relevant when rating >= threshold (under a dialect with graded
    ratings, Elliot, the ratings stay the grades and the threshold is the rel_level). ``grades="real"`` reads
    the qrels values as real-valued grades (an LLM judge's 0.73), from files too: measures with gains use them as
    they are (nDCG, ERR with ``max_grade``), and the ones that threshold grades need their ``rel`` given.
    ``train`` (training interactions: a table or path with user and item columns, or ``{user: [items]}``) and
    ``catalog`` (the number of items, or the items; by default those seen in training) give each user's candidate
    items, which Elliot's AUC family needs. The beyond-accuracy measures read ``train`` and ``catalog`` too, and
    ``features`` (item features: a table or CSV/TSV/parquet file with an item id column and numeric columns, for ILD and
    Serendipity with ``kind=feature_*``) and ``baseline`` (another model's lists, as a run: Unexpectedness, RBO, LIP).

    ``item_groups`` puts each item in a group, for the item-fairness measures (AWRF, FairScore, RSP, REO, ItemMAD, EE
    with over=groups):
    ``{item_id: label}``, a table with an item id and a label column, ``"FILE:COLUMN"`` (CSV, TSV, parquet, RecBole's
    ``ml-100k.item:class``; read as ``groups`` is), or ``"popularity"``: the short head (``head``) and long tail
    (``tail``) of the training items from ``train`` (0.8 of the interactions, as LongTail). Ids that are no item of
    the inputs, items of the run in no group and groups without an item in the run are notes.

    ``groups`` labels each evaluated query (user) with a group, after the per-query values are computed
    (:mod:`rankwise.pipeline.groups`: ``{query_id: label}``, a table with an id and a label column, ``"FILE:COLUMN"``
    as RecBole's ``ml-100k.user:gender``, or ``"activity"``: training interactions per user from ``train``, cut
    into cold / regular / heavy); ``result.groups`` holds the labels and :func:`rankwise.group_table` the table of
    every measure by group. Unknown ids, queries in no group and empty groups are notes.

    ``subtopics`` (a TREC Web track diversity qrels file, ``query_id subtopic doc_id grade`` per line, or a table or
    ``{query_id: {subtopic: {doc_id: grade}}}``; :func:`rankwise.load_subtopic_qrels`) are the judgments the
    intent-aware measures (alpha-nDCG, ERR-IA, NRBP, P-IA, AP-IA, StRecall) read; they are refused without them.
    With ``qrels=None``, or ``qrels`` the same file as ``subtopics``, the ordinary judgments are derived from them:
    each document's largest grade over the query's subtopics.

    ``samples`` reads the run as sampled rankings of a stochastic ranking policy, several per query, for the
    expected-exposure measures (:mod:`rankwise.pipeline.samples`): ``True`` for a TREC run whose second field names
    the sample (expeval's format: each sample ordered by its rank field), or the name of a tabular run's sample
    column; each document's exposure is its mean over the query's samples.

    ``stream=True`` evaluates a run file (TREC text, gzip or parquet) larger than memory: it is read in blocks and
    partitioned by query on disk (:mod:`rankwise.pipeline.partitioned`), with the same numbers as in memory;
    ``None`` (default) does so for run files over :data:`STREAM_BYTES`. ``progress(stage, done, total)`` is called
    as a streamed run is read and computed.

    The aggregate of a measure is the mean over evaluated queries (sums for counts, geometric mean for
    GMAP); per-query values that are undefined (NaN) are left out of means and counted.
    """
    return evaluate_with(qrels, run, measures, EvaluationOptions.from_arguments(locals()))


def evaluate_with(
    qrels: Any, run: Any, measures: MeasureLike | Iterable[MeasureLike] | None, options: EvaluationOptions
) -> EvaluationResult:
    """:func:`evaluate` with its keyword options as one value (what :func:`rankwise.compare`,
    :func:`rankwise.compare_dialects` and the command line pass on)."""
    plan = options.plan(measures)
    subtopics = options.subtopics
    judgments = load_subtopic_qrels(subtopics) if subtopics is not None else None
    refuse_without_subtopics(plan.pairs, judgments)
    if judgments is not None and (qrels is None or _same_file(qrels, subtopics)):
        qrels = judgments.adhoc_qrels()
    if options.samples:
        refuse_unsampled(plan)
        load = functools.partial(load_inputs, plan, train=options.train, qrels_columns=options.qrels_columns,
                                 features=options.features, baseline=options.baseline,
                                 item_groups=options.item_groups)  # fmt: skip
        frame = sampled_frame(run, options.samples, options.run_columns)
        inputs = sampled_inputs(plan, qrels, frame, options.run_columns, load)
        groups = compute_groups(plan, inputs, options.catalog)
        groups[0] = dataclasses.replace(groups[0], caveats=(*groups[0].caveats, sampled_note(frame)))
    elif _streams(run, options.stream):
        train_table = read_interactions(options.train) if options.train is not None else None
        feature_table, baseline_table = load_side_inputs(options.features, options.baseline)
        item_groups = read_item_groups(options.item_groups, train_table) if options.item_groups is not None else None
        inputs, groups = evaluate_streamed(plan, qrels, run, train=train_table, catalog=options.catalog,
                                           subtopics=judgments, features=feature_table, baseline=baseline_table,
                                           qrels_columns=options.qrels_columns, run_columns=options.run_columns,
                                           progress=options.progress, item_groups=item_groups)  # fmt: skip
    else:
        inputs = load_inputs(plan, qrels, run, train=options.train, qrels_columns=options.qrels_columns,
                             run_columns=options.run_columns, subtopics=judgments, features=options.features,
                             baseline=options.baseline, item_groups=options.item_groups)  # fmt: skip
        groups = compute_in_partitions(plan, inputs, options.catalog)
    result = assemble(plan, inputs, groups)
    if inputs.item_groups is not None and inputs.run.height:  # a stream has them from its ranges (partitioned.py)
        notes = item_group_notes(inputs.item_groups, inputs.run.frame.get_column(DOCID).unique(),
                                 inputs.qrels.frame.get_column(DOCID).unique())  # fmt: skip
        result = dataclasses.replace(result, caveats=(*result.caveats, *notes))
    return result.with_groups(options.groups, inputs.train)


def _same_file(qrels: Any, subtopics: Any) -> bool:
    """Whether ``qrels`` and ``subtopics`` name the same file (the diversity qrels given as both)."""
    if not (isinstance(qrels, (str, Path)) and isinstance(subtopics, (str, Path))):
        return False
    return Path(qrels).resolve() == Path(subtopics).resolve()


STREAM_BYTES = 1 << 30
"""Run files larger than this are evaluated in partitions unless ``stream=False``."""


def _streams(run: Any, stream: bool | None) -> bool:
    """Whether to evaluate ``run`` in partitions: as asked, or by the file's size."""
    if stream is False:
        return False
    if not streamable(run):
        if stream:
            raise InputError(f"stream=True reads a run file (TREC text, gzip or parquet), not {type(run).__name__}"
                             if not isinstance(run, (str, Path)) else f"{run}: stream=True reads TREC text, gzip or "
                             "parquet files; read CSV/TSV runs into a DataFrame")  # fmt: skip
        return False
    return bool(stream) or (Path(run).is_file() and Path(run).stat().st_size > STREAM_BYTES)


__all__ = ["EvaluationResult", "MeasureLike", "evaluate", "evaluate_with"]
