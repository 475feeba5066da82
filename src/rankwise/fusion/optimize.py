"""``rankwise.optimize_fusion``: the best fusion configuration for a measure, found by trying every one.

The weight grid is exact: every vector of ``denominator`` integer steps that sum to ``denominator`` (3 runs in
tenths: 66 points; 5 runs: 1,001), where ranx's ``get_trial_configs`` keeps only the float tuples whose sum
``== 1.0`` and so loses valid points ((0.2, 0.7, 0.1) among them: 62 of 66, 860 of 1,001). Each parameter is searched
on its grid (:attr:`rankwise.fusion.catalog.Param.grid`), and several methods and normalisations can be searched
at once. Every configuration is scored on the same pool: the runs are read, coded and normalised once, and each
fused ranking is evaluated by the engine's kernels on flat arrays (the numbers ``rankwise.evaluate`` gives for the
fused run, which the tests check). With ``folds``, the queries are split into k folds (seeded): on each, the
configuration is chosen on the other folds and its value reported on the held-out one.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import polars as pl
else:
    from ..io.lazy import polars as pl

from ..engine.aligned import Aligned, QueryAccounting
from ..errors import RankwiseError
from ..io import load_qrels
from ..measures import Measure
from ..pipeline.compute import compute
from ..pipeline.formats import plain_table
from ..pipeline.plan import resolve_measures
from ..policies import Policies, TiePolicy
from .catalog import METHODS, NORMALISATIONS, Method, Normalisation, normalisation
from .catalog import method as find_method
from .fused import Config, configure, fused_order, fused_scores
from .methods import MissingPolicy
from .normalisations import Scored, normalise
from .pool import Pool, QueryPolicy, build_pool, read_runs, run_names
from .training import Judgments, align_judgments, train


def weight_grid(num_runs: int, denominator: int = 10) -> np.ndarray:
    """Every weight vector of ``num_runs`` non-negative multiples of 1/``denominator`` summing to 1, exactly: the
    integer numerators (configurations × runs), in the lexicographic order of ``itertools.product`` (ranx's order),
    C(denominator + num_runs − 1, num_runs − 1) rows. Divide by ``denominator`` for the weights."""
    if num_runs < 1 or denominator < 1:
        raise RankwiseError(f"a weight grid needs runs >= 1 and denominator >= 1, got {num_runs}, {denominator}")
    rows = [(*bars, denominator) for bars in itertools.combinations_with_replacement(range(denominator + 1),
                                                                                     num_runs - 1)]  # fmt: skip
    grid = np.diff(np.array([[0, *row] for row in rows], dtype=np.int64), axis=1)
    return grid[np.lexsort(grid.T[::-1])]


@dataclass(frozen=True)
class Evaluator:
    """A measure's per-query values for any fused score over one pool: the evaluated queries (pool queries with
    judgments, or every pool query with ``queries="run"``), their judgments, grades looked up once per candidate."""

    pool: Pool
    judgments: Judgments
    key: str
    measure: Measure
    policies: Policies
    evaluated: np.ndarray
    """Bool per pool query."""

    @property
    def query_ids(self) -> list[str]:
        return self.pool.query_ids.filter(pl.Series(self.evaluated)).cast(pl.String).to_list()

    def values(self, fused: np.ndarray) -> np.ndarray:
        """The measure's value per evaluated query for the fused scores ``fused`` (one per candidate), as
        ``rankwise.evaluate`` computes it on the fused run."""
        pool, judgments = self.pool, self.judgments
        where = np.cumsum(self.evaluated) - 1
        order = fused_order(pool, fused)
        order = order[self.evaluated[pool.query[order]]]
        count = int(self.evaluated.sum())
        qidx = where[pool.query[order]]
        offsets = np.zeros(count + 1, dtype=np.int64)
        np.cumsum(np.bincount(qidx, minlength=count), out=offsets[1:])
        judged = self.evaluated[judgments.row_query]
        qrel_qidx = where[judgments.row_query[judged]]
        by = np.lexsort((judgments.row_doc[judged], qrel_qidx))
        accounting = QueryAccounting(count, (), judgments.qrels_only, (), ())
        aligned = Aligned(self.query_ids, offsets, qidx, np.arange(len(order)) - offsets[qidx] + 1, fused[order],
                          judgments.grade[order], qrel_qidx[by], judgments.row_grade[judged][by], accounting,
                          doc=pool.doc[order], doc_ids=pool.doc_ids)  # fmt: skip
        values, _, _ = compute(aligned, [(self.key, self.measure)], self.policies)
        return values[0]


def make_evaluator(pool: Pool, qrels: Any, measure: str | Measure, *, ties: TiePolicy | str, rel_level: int,
                   queries: str = "intersection") -> Evaluator:  # fmt: skip
    """An :class:`Evaluator` for one measure averaged over queries (``queries``: ``intersection``, the pool's
    judged queries, as ``evaluate``'s default; or ``run``, every pool query)."""
    pairs = resolve_measures(measure)
    if len(pairs) != 1:
        raise RankwiseError(f"optimize_fusion optimises one measure; {measure!r} names {len(pairs)}")
    key, m = pairs[0]
    if m.aggregation != "mean":
        raise RankwiseError(f"{key} is aggregated by {m.aggregation}, not a mean over queries: optimize_fusion "
                            "needs a measure averaged over queries")  # fmt: skip
    if queries not in ("intersection", "run"):
        raise RankwiseError(f"queries={queries!r}: optimize_fusion evaluates over intersection or run")
    judgments = align_judgments(pool, load_qrels(qrels))
    evaluated = judgments.judged.copy() if queries == "intersection" else np.ones(pool.num_queries, dtype=bool)
    if not evaluated.any():
        raise RankwiseError("the runs and the qrels share no query: nothing to optimise on")
    policies = Policies(ties=ties, queries=queries, rel_level=rel_level)  # type: ignore[arg-type]
    return Evaluator(pool, judgments, key, m, policies, evaluated)


@dataclass
class FusionSearch:
    """What :func:`optimize_fusion` found.

    ``best``: the configuration with the highest mean (the first in the report's order among equal ones; ranx
    keeps the last); ``score``: its mean over the evaluated queries; ``report``: every configuration tried, with its
    mean (``to_polars()``/``to_pandas()``, ``table()``, ``write()``) and ``per_query`` values; with folds,
    ``folds``: per fold the configuration chosen on
    the other folds, its mean there (``train``) and on the fold (``test``), and ``held_out``: the mean over all
    queries of the values each got when held out (each query is held out once)."""

    measure: str
    best: Config
    score: float
    configs: list[Config]
    scores: np.ndarray
    query_ids: list[str]
    per_query: np.ndarray
    """(configurations × evaluated queries): each configuration's value on each query (trained on all of them)."""
    folds: list[dict[str, Any]] = field(default_factory=list)
    held_out: float | None = None
    notes: list[str] = field(default_factory=list)

    def best_arguments(self) -> dict[str, Any]:
        """The keyword arguments that give :func:`rankwise.fuse` the best configuration."""
        out: dict[str, Any] = {"method": self.best.method.name, "norm": self.best.norm.name}
        if self.best.method.weighted:
            out["weights"] = [float(w) for w in self.best.weights]
        if self.best.params:
            out["params"] = dict(self.best.params)
        return out

    def to_polars(self) -> pl.DataFrame:
        """One row per configuration: method, norm, weights, params (``k=60``), the measure's mean (``score``),
        in the order tried."""
        return pl.DataFrame({
            "method": [c.method.name for c in self.configs],
            "norm": [c.norm.name for c in self.configs],
            "weights": [[float(w) for w in c.weights] if c.method.weighted else None for c in self.configs],
            "params": [",".join(f"{k}={v:g}" for k, v in c.params.items()) for c in self.configs],
            "score": self.scores,
        }, schema_overrides={"weights": pl.List(pl.Float64)})  # fmt: skip

    def write(self, path: str | Path) -> None:
        """The report to ``path``: parquet (``.parquet``), else CSV with the weights as ``0.3,0.7``."""
        if Path(path).suffix.lower() in (".parquet", ".pq"):
            self.to_polars().write_parquet(path)
            return
        text = pl.col("weights").list.eval(pl.element().cast(pl.String)).list.join(",")
        self.to_polars().with_columns(text).write_csv(path)

    def to_pandas(self) -> Any:
        return self.to_polars().to_pandas()

    def folds_frame(self) -> pl.DataFrame:
        """One row per fold: the configuration chosen on the training folds, its train and held-out means."""
        return pl.DataFrame(self.folds, schema={"fold": pl.Int64, "configuration": pl.String, "train": pl.Float64,
                                                "test": pl.Float64, "queries": pl.Int64})  # fmt: skip

    def table(self, top: int | None = None) -> str:
        """The report as text: every configuration (or the ``top`` best) by decreasing mean, then the folds."""
        order = np.argsort(-np.nan_to_num(self.scores, nan=-np.inf), kind="stable")[:top]
        labels = [self.configs[i].label() for i in order]
        values = [f"{self.scores[i]:.4f}" for i in order]
        lines = plain_table(["configuration", self.measure], [labels, values], [False, True])
        if self.folds:
            lines += ["", *plain_table(["fold", "chosen on the other folds", "train", "held out", "queries"],
                                       [[str(f["fold"]) for f in self.folds],
                                        [f["configuration"] for f in self.folds],
                                        [f"{f['train']:.4f}" for f in self.folds],
                                        [f"{f['test']:.4f}" for f in self.folds],
                                        [str(f["queries"]) for f in self.folds]],
                                       [True, False, True, True, True])]  # fmt: skip
            lines.append(f"held-out {self.measure} over {len(self.query_ids)} queries: {self.held_out:.4f}")
        lines.append(f"best: {self.best.label()}  {self.measure} = {self.score:.4f} "
                     f"({len(self.configs)} configurations)")  # fmt: skip
        return "\n".join(lines) + "\n"


def configurations(
    methods: Sequence[Method], norms: Sequence[Normalisation], num_runs: int, denominator: int,
    params: Mapping[str, Any] | None,
) -> list[Config]:  # fmt: skip
    """Every configuration searched: per method and normalisation, the exact weight grid (weighted methods) times
    the product of the parameters' grids; a parameter given in ``params`` is fixed (a number) or searched over the
    values given (a list)."""
    given = dict(params or {})
    known = {p.name for m in methods for p in m.params}
    for name in given:
        if name not in known:
            raise RankwiseError(f"unknown parameter {name!r} for {', '.join(m.name for m in methods)}")
    out = []
    grid = weight_grid(num_runs, denominator) / denominator
    for m, n in itertools.product(methods, norms):
        choices = []
        for p in m.params:
            value = given.get(p.name, p.values())
            choices.append([value] if not isinstance(value, Iterable) else list(value))
        for combo in itertools.product(*choices):
            values = dict(zip((p.name for p in m.params), combo))
            for weights in grid if m.weighted else [None]:
                out.append(configure(m, n, weights, values, num_runs))
    return out


def _as_list(value: Any, everything: Sequence[Any], read: Any) -> list[Any]:
    """One name, a list of names, or ``"all"`` → the catalog entries."""
    if isinstance(value, str) and value.lower() == "all":
        return list(everything)
    names = [value] if isinstance(value, str) or value is None else list(value)
    return [read(v) for v in names]


def optimize_fusion(
    qrels: Any, runs: Any, method: str | Sequence[str] = "wsum", norm: str | Sequence[str] | None = "min-max",
    measure: str | Measure = "nDCG", *, denominator: int = 10, params: Mapping[str, Any] | None = None,
    folds: int | None = None, seed: int = 0, depth: int | None = None, missing: MissingPolicy | str = "default",
    queries: QueryPolicy | str = "union", ties: TiePolicy | str = "docno_desc", rel_level: int = 1,
    evaluate_queries: str = "intersection",
) -> FusionSearch:  # fmt: skip
    """Search the fusion configurations of ``runs`` for the highest mean ``measure`` against ``qrels``.

    - ``method`` and ``norm``: a name, a list of names, or ``"all"`` (see :data:`rankwise.fusion.METHODS`,
      :data:`~rankwise.fusion.NORMALISATIONS`): every pair is searched.
    - the weights of a weighted method: every vector of multiples of 1/``denominator`` summing to 1 (exact integer
      steps, :func:`weight_grid`; ranx's ``optimize_fusion`` with ``step=0.1`` drops 141 of 5 runs' 1,001).
    - each parameter over its grid (RRF's k: 10, 20, ..., 100 as ranx; γ, σ, φ: 0.01 to 1; ProbFuse's segments and
      SlideFuse's w: 1 to 100), or fixed or listed in ``params`` (``{"k": [20, 60]}``).
    - methods that learn (ProbFuse, ...) learn from the training queries' ``qrels``.
    - ``folds``: k-fold cross-validation over the evaluated queries, split by ``numpy.random.default_rng(seed)``:
      on each fold the best configuration on the other folds is chosen (and, for the methods that learn, trained on
      them) and its value on the fold reported; ranx reports the training value only.
    - ``depth``, ``missing``, ``queries`` (the pool's), ``ties``: as :func:`rankwise.fuse`; ``rel_level`` and
      ``evaluate_queries`` (``intersection``, or ``run``): as :func:`rankwise.evaluate` (its ``queries``).

    The measure must be averaged over queries (nDCG@10, AP, P@10, RR, ...). Every configuration's value is the one
    ``rankwise.evaluate(qrels, fused, measure, ties=ties)`` gives for its fused run. Formulas: Fox & Shaw 1993,
    Cormack et al. 2009, ... (each method's catalog entry); the search is ranx's ``optimize_fusion``
    (ranx/meta/optimize_fusion.py, ranx/fusion_optimization/*.py) with the grid made exact and cross-validation added.
    """
    methods = _as_list(method, METHODS, find_method)
    norms = _as_list(norm, NORMALISATIONS, normalisation)
    if folds is not None and (isinstance(folds, bool) or not isinstance(folds, int) or folds < 2):
        raise RankwiseError(f"folds must be an integer >= 2, got {folds!r}")
    tables = read_runs(runs)
    names = run_names(runs, tables)
    pools: dict[bool, Pool] = {}
    for inverted in sorted({n.inverts for n in norms}):
        pools[inverted] = build_pool(tables, names, ties=ties, queries=queries, depth=depth, inverted=inverted)
    evaluators = {inv: make_evaluator(pool, qrels, measure, ties=ties, rel_level=rel_level, queries=evaluate_queries)
                  for inv, pool in pools.items()}  # fmt: skip
    configs = configurations(methods, norms, len(tables), denominator, params)
    scored = {n.name: normalise(pools[n.inverts], n) for n in norms}
    first = next(iter(evaluators.values()))
    num_queries = int(first.evaluated.sum())
    splits = _folds(num_queries, folds, seed) if folds else []
    full = np.empty((len(configs), num_queries))
    per_fold = [np.empty((len(configs), num_queries)) for _ in splits]
    for i, config in enumerate(configs):
        ev = evaluators[config.norm.inverts]
        sc = scored[config.norm.name]
        full[i] = _values(ev, sc, config, missing, np.ones(num_queries, dtype=bool), rel_level)
        for f, test in enumerate(splits):
            if config.method.trained:
                training = np.ones(num_queries, dtype=bool)
                training[test] = False
                per_fold[f][i] = _values(ev, sc, config, missing, training, rel_level)
            else:
                per_fold[f][i] = full[i]
    means = _means(full)
    best = int(np.argmax(np.nan_to_num(means, nan=-np.inf)))
    search = FusionSearch(first.key, configs[best], float(means[best]), configs, means, first.query_ids, full,
                          notes=first.pool.notes())  # fmt: skip
    if splits:
        _cross_validate(search, per_fold, splits)
    return search


def _values(ev: Evaluator, scored: Scored, config: Config, missing: MissingPolicy | str, training: np.ndarray,
            rel_level: int) -> np.ndarray:  # fmt: skip
    """Per evaluated query, the measure for ``config``; a method that learns is trained on the evaluated queries
    where ``training``."""
    trained = None
    if config.method.trained:
        queries = np.zeros(ev.pool.num_queries, dtype=bool)
        queries[np.flatnonzero(ev.evaluated)[training]] = True
        trained = train(ev.pool, scored, ev.judgments, queries, rel_level)
    return ev.values(fused_scores(ev.pool, scored, config, trained, missing))


def _means(values: np.ndarray) -> np.ndarray:
    """Per row, the mean over the defined (non-NaN) values; NaN where none is."""
    defined = ~np.isnan(values)
    count = defined.sum(axis=1)
    with np.errstate(invalid="ignore"):
        return np.where(count > 0, np.where(defined, values, 0.0).sum(axis=1) / np.maximum(count, 1), np.nan)


def _folds(num_queries: int, k: int, seed: int) -> list[np.ndarray]:
    """The held-out query positions of each of ``k`` folds: a seeded permutation cut into k near-equal parts."""
    if k > num_queries:
        raise RankwiseError(f"{k} folds for {num_queries} queries: give at most one fold per query")
    permutation = np.random.default_rng(seed).permutation(num_queries)
    return [np.sort(part) for part in np.array_split(permutation, k)]


def _cross_validate(search: FusionSearch, per_fold: list[np.ndarray], splits: list[np.ndarray]) -> None:
    """Per fold, the configuration with the best mean on the other folds and its mean on the fold; the held-out
    value of every query under the configuration chosen without it."""
    held = np.full(len(search.query_ids), np.nan)
    for f, test in enumerate(splits):
        training = np.ones(len(search.query_ids), dtype=bool)
        training[test] = False
        train_means = _means(per_fold[f][:, training])
        chosen = int(np.argmax(np.nan_to_num(train_means, nan=-np.inf)))
        held[test] = per_fold[f][chosen, test]
        test_mean = _means(per_fold[f][chosen : chosen + 1, test])[0]
        search.folds.append({"fold": f + 1, "configuration": search.configs[chosen].label(),
                             "train": float(train_means[chosen]), "test": float(test_mean), "queries": len(test)})
    search.held_out = float(_means(held[None, :])[0])


__all__ = ["Evaluator", "FusionSearch", "configurations", "make_evaluator", "optimize_fusion", "weight_grid"]
