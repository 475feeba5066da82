"""The Python API: ``rankwise.evaluate(qrels, run, measures, **policies)``."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl

from .aligned import Aligned, QueryAccounting, align
from .dialects import Dialect, resolve_dialect
from .errors import EmptyInputError, InputError, MeasureError
from .io import load_qrels, load_run
from .io.interactions import load_interactions
from .io.table import Kind, Origin, Table, empty_table
from .kernels import KERNELS, aggregate_measure, apply_empty_policy
from .measures import Measure, parse_measures
from .measures.trec_names import CUTOFF_FAMILIES
from .policies import Policies, QuerySet, ScorePrecision, TiePolicy

if TYPE_CHECKING:
    import pandas as pd

MeasureLike = str | Measure


def resolve_measures(
    measures: MeasureLike | Iterable[MeasureLike] | None, cutoffs: Iterable[int] | None = None
) -> list[tuple[str, Measure]]:
    """``(key, measure)`` pairs for what the user asked; None means trec_eval's ``official`` set.

    With ``cutoffs``, a measure written without a cutoff whose family takes a rank cutoff becomes one measure
    per cutoff, keyed ``TEXT@k``.

    Keys are the strings exactly as written (or each trec_eval output name when one string names a set,
    like ``P.5,10``); a :class:`Measure` object is keyed by its canonical name.
    """
    if measures is None:
        measures = ["official"]
    elif isinstance(measures, (str, Measure)):
        measures = [measures]
    pairs: list[tuple[str, Measure]] = []
    for item in measures:
        if isinstance(item, Measure):
            pairs.append((str(item), item))
        elif isinstance(item, str):
            text = item.strip()
            if cutoffs is not None and CUTOFF_FAMILIES.get(text, ("", ()))[0] not in ("", "IPrec"):
                text = f"{text}.{','.join(str(int(k)) for k in cutoffs)}"  # -m P -k 10,20: P_10, P_20
            pairs.extend(parse_measures(text))
        else:
            raise MeasureError(f"a measure must be a string or a Measure, not {type(item).__name__}")
    if cutoffs is not None:
        pairs = _with_cutoffs(pairs, [int(k) for k in cutoffs])
    if not pairs:
        raise MeasureError("no measures given")
    unique: dict[str, Measure] = {}
    for key, measure in pairs:
        if unique.get(key, measure) != measure:
            raise MeasureError(f"{key!r} would name two different measures: {unique[key]} and {measure}")
        unique[key] = measure
    return list(unique.items())


def _with_cutoffs(pairs: list[tuple[str, Measure]], cutoffs: list[int]) -> list[tuple[str, Measure]]:
    out = []
    for key, measure in pairs:
        if measure.cutoff is None and measure.spec.cutoff == "rank":
            out += [(f"{key}@{k}", Measure(measure.name, cutoff=k, params=measure.params)) for k in cutoffs]
        else:
            out.append((key, measure))
    return out


def resolved_rel(measure: Measure, policies: Policies) -> int:
    """The relevance threshold in force: the measure's own ``rel``, else the evaluation's ``rel_level``."""
    value = measure.option("rel")
    return int(value) if isinstance(value, int) else policies.rel_level  # rel is an int parameter


@dataclass(frozen=True)
class EvaluationResult:
    """Aggregate and per-query values of one evaluation, with an account of every query.

    ``values[i, j]`` is measure ``keys[i]`` on query ``query_ids[j]`` (NaN where undefined).
    """

    keys: tuple[str, ...]
    measures: tuple[Measure, ...]
    query_ids: tuple[str, ...]
    values: np.ndarray
    aggregate: dict[str, float]
    undefined: dict[str, int]
    accounting: QueryAccounting
    policies: Policies
    run_name: str | None = None
    dialect: str | None = None
    caveats: tuple[str, ...] = ()

    @property
    def per_query(self) -> dict[str, dict[str, float]]:
        """``{query_id: {key: value}}``."""
        return {
            qid: {key: float(self.values[i, j]) for i, key in enumerate(self.keys)}
            for j, qid in enumerate(self.query_ids)
        }

    def to_polars(self) -> pl.DataFrame:
        """Long table of per-query values: columns query_id, measure, value."""
        nq = len(self.query_ids)
        return pl.DataFrame(
            {
                "query_id": pl.Series(list(self.query_ids) * len(self.keys), dtype=pl.String),
                "measure": pl.Series(np.repeat(np.array(self.keys, dtype=object), nq).tolist(), dtype=pl.String),
                "value": pl.Series(self.values.reshape(-1), dtype=pl.Float64),
            }
        )

    def to_pandas(self) -> pd.DataFrame:
        """Long table of per-query values as pandas (needs pandas and pyarrow)."""
        return self.to_polars().to_pandas()

    def notes(self) -> list[str]:
        """One line for every query or document left out of, or treated specially in, the averages."""
        acc = self.accounting
        query_groups = (
            (acc.run_only, "run queries have no judgments and were not evaluated"),
            (acc.qrels_only, "judged queries are missing from the run and were not evaluated "
                             "(queries='qrels' / -c scores them 0)"),
            (acc.scored_empty, "judged queries missing from the run were scored as empty rankings"),
            (acc.unjudged_evaluated, "run queries without judgments were scored with no relevant documents"),
            (acc.no_relevant, "judged queries have no relevant document and were not evaluated"),
        )  # fmt: skip
        lines = [f"{len(ids)} {what}: {_sample(ids)}" for ids, what in query_groups if ids]
        if acc.truncated_rows:
            lines.append(f"{acc.truncated_rows} ranked documents beyond depth {self.policies.depth} were ignored")
        lines.extend(self.caveats)
        for key, count in self.undefined.items():
            if count:
                lines.append(f"{key}: undefined for {count} of {len(self.query_ids)} queries, "
                             "left out of its mean")  # fmt: skip
        return lines


def _sample(ids: tuple[str, ...], shown: int = 5) -> str:
    """The first few ids, and how many more there are."""
    text = ", ".join(ids[:shown])
    return text + (f", … ({len(ids) - shown} more)" if len(ids) > shown else "")


def compute(
    aligned: Aligned, pairs: list[tuple[str, Measure]], policies: Policies
) -> tuple[np.ndarray, list[float], tuple[str, ...]]:
    """Per-query values, one row per measure (each distinct measure computed once), aggregates and caveats.

    ``ties=average`` is an expectation, defined only for measures linear in per-rank values; any other
    measure is computed on the layout order (tied documents by doc id descending) and says so in a caveat.
    """
    values = np.empty((len(pairs), aligned.num_queries), dtype=np.float64)
    aggregates = []
    done: dict[tuple[Measure, int], np.ndarray] = {}
    caveats = []
    ordered = dataclasses.replace(aligned, tie_group=None) if aligned.tie_group is not None else aligned
    for i, (key, measure) in enumerate(pairs):
        data = aligned
        if aligned.tie_group is not None and not measure.spec.tie_average:
            data = ordered
            if not measure.orders_ties_itself:
                caveats.append(f"{key}: ties=average is not defined for {measure.name} (not linear in per-rank "
                               "values); tied documents were ordered by doc id, descending")  # fmt: skip
        rel = resolved_rel(measure, policies)
        done_key = (measure, rel)
        if done_key not in done:
            done[done_key] = apply_empty_policy(data, measure, rel, KERNELS[measure.name](data, measure, rel))
            _refuse_overflow(key, done[done_key], data)
        values[i] = done[done_key]
        aggregates.append(aggregate_measure(data, measure, rel, values[i]))
    return values, aggregates, tuple(caveats)


def _refuse_overflow(key: str, values: np.ndarray, aligned: Aligned) -> None:
    """A per-query value beyond float64's range (gains so large their sum overflows) is an error, never a value."""
    infinite = np.flatnonzero(np.isinf(values))
    if len(infinite):
        raise MeasureError(
            f"{key}: the value of query {aligned.query_ids[infinite[0]]!r} overflows float64 (gains too large); "
            f"{len(infinite)} of {aligned.num_queries} queries affected"
        )


def _merge_queries(
    values: np.ndarray,
    covered: np.ndarray,
    query_ids: list[str],
    rows: list[int],
    other_values: np.ndarray,
    other_ids: list[str],
) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Put ``other_values`` (for measure rows ``rows``, over ``other_ids``) into a table over the union of
    query ids; ``covered`` marks which (measure, query) cells each measure actually evaluated."""
    union = sorted(set(query_ids) | set(other_ids), key=lambda q: q.encode())
    position = {q: j for j, q in enumerate(union)}
    merged = np.full((values.shape[0], len(union)), np.nan)
    merged_covered = np.zeros(merged.shape, dtype=bool)
    old = [position[q] for q in query_ids]
    merged[:, old], merged_covered[:, old] = values, covered
    new = [position[q] for q in other_ids]
    merged[rows, :], merged_covered[rows, :] = np.nan, False
    merged[np.ix_(rows, new)], merged_covered[np.ix_(rows, new)] = other_values, True
    return merged, merged_covered, union


def rating_threshold(dialect: Dialect | None, threshold: float | None, rel_level: int) -> tuple[float | None, int]:
    """The threshold the qrels are read with and the rel_level in force. Under a dialect whose ratings are
    ``graded`` (Elliot), ratings stay the grades and an integer threshold becomes the rel_level; otherwise
    ratings at or above the threshold are grade 1."""
    if threshold is None or dialect is None or dialect.ratings != "graded":
        return threshold, rel_level
    if not float(threshold).is_integer() or threshold < 0:
        raise InputError(
            f"dialect {dialect.name} keeps ratings as graded gains 2^(r − t + 1) − 1, which rankwise computes for a "
            f"whole-number threshold t >= 0 and integer ratings; got threshold {threshold}"
        )
    return None, int(threshold)


def candidate_counts(query_ids: list[str], train: pl.DataFrame | None, catalog: Any) -> np.ndarray | None:
    """Per query: catalogue size − the user's distinct training items, or None without training interactions.

    ``catalog`` is the number of items or the items themselves; by default the items seen in training (Elliot's
    ``num_items``)."""
    if train is None:
        if catalog is not None:
            raise InputError("catalog= counts each user's candidates against their training items: give train= too")
        return None
    if catalog is None:
        size = train.get_column("doc_id").n_unique()
    elif isinstance(catalog, int) and not isinstance(catalog, bool):
        size = catalog
    elif isinstance(catalog, Iterable) and not isinstance(catalog, (str, bytes)):
        size = len({str(item) for item in catalog})
    else:
        raise InputError(f"catalog must be a number of items or the items, not {type(catalog).__name__}")
    seen = train.group_by("query_id").len()
    counts = dict(zip(seen.get_column("query_id").to_list(), seen.get_column("len").to_list()))
    out = np.array([size - counts.get(q, 0) for q in query_ids], dtype=np.float64)
    if len(out) and out.min() < 1:
        user = query_ids[int(np.argmin(out))]
        raise InputError(f"a catalogue of {size} items leaves user {user!r} no candidate (it has "
                         f"{counts.get(user, 0)} training items): give catalog= the full item count")  # fmt: skip
    return out


def _load(dialect: Dialect | None, kind: Kind, read: Callable[[], Table]) -> Table:
    """``read()``, or under a dialect that reads empty input as data, an empty table with a note saying so."""
    try:
        return read()
    except EmptyInputError as exc:
        if dialect is None or dialect.empty_input != "data":
            raise
        what = ("every judged query is scored as an empty ranking" if kind == "run"
                else "no query is evaluated and every mean is undefined")  # fmt: skip
        return empty_table(kind, Origin(kind), f"{kind} has no rows ({exc}): under {dialect.key} {what}")


def with_candidates(aligned: Aligned, train: pl.DataFrame | None, catalog: Any) -> Aligned:
    """``aligned`` with each query's candidate count (see :func:`candidate_counts`)."""
    aligned.num_candidates = candidate_counts(aligned.query_ids, train, catalog)
    return aligned


def resolve_policies(dialect: Dialect | None, **given: Any) -> Policies:
    """Policies in force: those given explicitly, else the dialect's, else trec_eval's defaults."""
    chosen = {key: value for key, value in given.items() if value is not None}
    return Policies(**{**(dialect.policies if dialect else {}), **chosen})


def evaluate(
    qrels: Any,
    run: Any,
    measures: MeasureLike | Iterable[MeasureLike] | None = None,
    *,
    dialect: str | Dialect | None = None,
    ties: TiePolicy | str | None = None,
    queries: QuerySet | str | None = None,
    depth: int | None = None,
    rel_level: int = 1,
    scores: ScorePrecision | str | None = None,
    cutoffs: Iterable[int] | None = None,
    threshold: float | None = None,
    qrels_columns: Mapping[str, str] | None = None,
    run_columns: Mapping[str, str] | None = None,
    train: Any = None,
    catalog: int | Iterable[str] | None = None,
) -> EvaluationResult:
    """Evaluate ``run`` against ``qrels`` with ``measures`` (default: trec_eval's ``official`` set).

    ``qrels`` and ``run`` may be paths (TREC, ``.gz``, CSV/TSV/parquet), DataFrames (polars, pandas),
    pyarrow tables or ``{query_id: {doc_id: value}}`` dicts. Policies: ``ties`` (``docno_desc`` as
    trec_eval, ``docno_asc``, ``input_order``), ``queries`` (``intersection`` as trec_eval, ``qrels`` =
    trec_eval ``-c``, ``run``), ``depth`` (trec_eval ``-M``), ``rel_level`` (trec_eval ``-l``), ``scores``
    (``float64``, or ``float32`` as pytrec_eval). ``dialect`` (``"lightgbm"``, ``"ranx@0.3"``, see
    ``rankwise.dialects``) makes each measure name mean what that library computes: it fills in every
    parameter and policy not given explicitly. ``cutoffs=[10, 20]`` gives every measure written without a
    cutoff each of these (``nDCG`` → ``nDCG@10``, ``nDCG@20``). ``threshold`` reads qrels values as
    ratings (recommendation ground truth): relevant when rating >= threshold (under a dialect with graded
    ratings, Elliot, the ratings stay the grades and the threshold is the rel_level). ``train`` (training
    interactions: a table or path with user and item columns, or ``{user: [items]}``) and ``catalog`` (the
    number of items, or the items; by default those seen in training) give each user's candidate items, which
    Elliot's AUC family needs.

    The aggregate of a measure is the mean over evaluated queries (sums for counts, geometric mean for
    GMAP); per-query values that are undefined (NaN) are left out of means and counted.
    """
    chosen, dialect_note = resolve_dialect(dialect) if isinstance(dialect, str) else (dialect, None)
    threshold, rel_level = rating_threshold(chosen, threshold, rel_level)
    policies = resolve_policies(chosen, ties=ties, queries=queries, depth=depth, rel_level=rel_level, scores=scores)
    pairs = resolve_measures(measures, cutoffs)
    if chosen is not None:
        pairs = [(key, chosen.bind(measure, policies.rel_level)) for key, measure in pairs]
    qrels_table = _load(chosen, "qrels", lambda: load_qrels(qrels, qrels_columns, threshold))
    run_table = _load(chosen, "run", lambda: load_run(run, run_columns))
    train_pairs = load_interactions(train) if train is not None else None
    aligned = with_candidates(align(qrels_table, run_table, policies), train_pairs, catalog)
    overrides = chosen.measure_queries if chosen is not None and queries is None else {}
    main = [i for i, (_, m) in enumerate(pairs) if overrides.get(m.name, policies.queries.value) == policies.queries]
    values = np.full((len(pairs), aligned.num_queries), np.nan)
    aggregates: dict[str, float] = {}
    values[main], main_aggregates, caveats = compute(aligned, [pairs[i] for i in main], policies)
    aggregates.update((pairs[i][0], v) for i, v in zip(main, main_aggregates))
    query_ids = list(aligned.query_ids)
    covered = np.zeros(values.shape, dtype=bool)
    covered[main] = True
    for query_set in sorted({overrides[m.name] for _, m in pairs if m.name in overrides} - {policies.queries.value}):
        # a dialect that averages some measures over another query set (MS Recommenders' nDCG)
        rows = [i for i, (_, m) in enumerate(pairs) if overrides.get(m.name) == query_set]
        other = dataclasses.replace(policies, queries=QuerySet(query_set))
        other_aligned = with_candidates(align(qrels_table, run_table, other), train_pairs, catalog)
        other_values, other_aggregates, other_caveats = compute(other_aligned, [pairs[i] for i in rows], other)
        aggregates.update((pairs[i][0], v) for i, v in zip(rows, other_aggregates))
        caveats += other_caveats + tuple(f"{pairs[i][0]}: averaged over queries={query_set}" for i in rows)
        values, covered, query_ids = _merge_queries(values, covered, query_ids, rows, other_values,
                                                    list(other_aligned.query_ids))  # fmt: skip
    undefined = {key: int(np.isnan(values[i][covered[i]]).sum()) for i, (key, _) in enumerate(pairs)}
    return EvaluationResult(
        keys=tuple(k for k, _ in pairs),
        measures=tuple(m for _, m in pairs),
        query_ids=tuple(query_ids),
        values=values,
        aggregate={key: aggregates[key] for key, _ in pairs},
        undefined=undefined,
        accounting=aligned.accounting,
        policies=policies,
        run_name=run_table.run_name,
        dialect=chosen.key if chosen else None,
        caveats=(*([dialect_note] if dialect_note else []), *qrels_table.notes, *run_table.notes, *caveats),
    )
