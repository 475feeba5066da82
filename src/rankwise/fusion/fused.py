"""``rankwise.fuse``: runs in (paths, DataFrames, Arrow tables, dicts), one fused run out, in the kind the runs came
in. The steps: read and pool the runs (:mod:`.pool`), normalise (:mod:`.normalisations`), learn from judgments
where the method needs it (:mod:`.training`), combine (:mod:`.methods`), order (score descending, equal scores by
the tie policy ``evaluate`` uses)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import polars as pl
else:
    from ..io.lazy import polars as pl

from ..errors import InputError, RankwiseError
from ..io import load_qrels
from ..policies import TiePolicy
from .catalog import METHODS, Method, Normalisation, method, normalisation
from .methods import MissingPolicy, fuse_scores
from .normalisations import Scored, normalise
from .pool import Pool, QueryPolicy, build_pool, read_runs, run_names
from .training import align_judgments, train


@dataclass(frozen=True)
class Config:
    """One fusion configuration, checked: the method, the normalisation, one weight per run, the parameters."""

    method: Method
    norm: Normalisation
    weights: np.ndarray
    params: dict[str, float]

    def label(self) -> str:
        """``rrf(k=60) min-max`` / ``wsum[0.3,0.7] min-max``: the configuration in one word per part."""
        params = ",".join(f"{k}={v:g}" for k, v in self.params.items())
        weights = "[" + ",".join(f"{w:g}" for w in self.weights) + "]" if self.method.weighted else ""
        return f"{self.method.name}{weights}{f'({params})' if params else ''} {self.norm.name}"


def configure(
    method_name: str | Method, norm_name: str | Normalisation | None, weights: Sequence[float] | np.ndarray | None,
    params: Mapping[str, float] | None, num_runs: int,
) -> Config:  # fmt: skip
    """A :class:`Config`, or one line naming what does not fit: an unknown method or normalisation, weights whose
    count is not the number of runs (or that are not finite), weights for a method that takes none, an unknown
    parameter or one out of its range."""
    m = method_name if isinstance(method_name, Method) else method(method_name)
    n = norm_name if isinstance(norm_name, Normalisation) else normalisation(norm_name)
    if weights is None:
        w = np.full(num_runs, 1.0 / num_runs)
    else:
        if not m.weighted:
            weighted = ", ".join(x.name for x in _weighted())
            raise RankwiseError(f"{m.name} takes no weights; the weighted methods: {weighted}")
        values = list(weights)
        if len(values) != num_runs:
            raise RankwiseError(f"{len(values)} weights for {num_runs} runs: give one weight per run")
        bad = [v for v in values if isinstance(v, bool) or not isinstance(v, (int, float, np.number))
               or not math.isfinite(float(v))]  # fmt: skip
        if bad:
            raise RankwiseError(f"weight {bad[0]!r} is not a finite number")
        w = np.asarray(values, dtype=np.float64)
    given = dict(params or {})
    checked = {p.name: p.check(given.pop(p.name, p.default), m.name) for p in m.params}
    if given:
        m.param(next(iter(given)))  # raises, naming the unknown parameter
    return Config(m, n, w, checked)


def _weighted() -> list[Method]:
    return [x for x in METHODS if x.weighted]


def fused_scores(pool: Pool, scored: Scored, config: Config, trained: Any = None,
                 missing: MissingPolicy | str = MissingPolicy.DEFAULT) -> np.ndarray:  # fmt: skip
    """The fused score of every candidate of ``pool`` under ``config``."""
    return fuse_scores(pool, scored, config.method, config.weights, config.params, missing, trained)


def fused_order(pool: Pool, fused: np.ndarray) -> np.ndarray:
    """The candidates in fused order: by query (text order of the ids), score descending, equal scores by the tie
    policy (the pool's tie keys)."""
    return pool.order(fused)[0]


def fused_frame(pool: Pool, fused: np.ndarray, order: np.ndarray | None = None) -> pl.DataFrame:
    """The fused run as a polars DataFrame (query_id, doc_id, rank, score) in fused order, ids in the runs' type."""
    order = fused_order(pool, fused) if order is None else order
    query = pool.query[order]
    rank = np.arange(len(order), dtype=np.int64) - pool.offsets[query] + 1
    return pl.DataFrame([pool.query_ids.gather(query).alias("query_id"),
                         pool.doc_ids.gather(pool.doc[order]).alias("doc_id"),
                         pl.Series("rank", rank), pl.Series("score", fused[order])])  # fmt: skip


def prepare(
    runs: Any, norm: Normalisation, *, ties: TiePolicy | str, queries: QueryPolicy | str, depth: int | None,
) -> tuple[Pool, Scored]:  # fmt: skip
    """Read and pool ``runs`` and normalise them by ``norm``."""
    tables = read_runs(runs)
    pool = build_pool(tables, run_names(runs, tables), ties=ties, queries=queries, depth=depth, inverted=norm.inverts)
    return pool, normalise(pool, norm)


def fuse_with_notes(
    runs: Any, method: str = "wsum", norm: str | None = "min-max", weights: Sequence[float] | None = None,
    params: Mapping[str, float] | None = None, depth: int | None = None, missing: MissingPolicy | str = "default",
    *, queries: QueryPolicy | str = "union", ties: TiePolicy | str = "docno_desc", qrels: Any = None,
    rel_level: int = 1,
) -> tuple[pl.DataFrame, list[str], Config]:  # fmt: skip
    """:func:`fuse`'s work: the fused run as a polars DataFrame, the notes (queries left out, rows cut), the
    configuration used."""
    configure(method, norm, None, params, 1)  # names and parameters checked before any run is read
    pool, scored = prepare(runs, normalisation(norm), ties=ties, queries=queries, depth=depth)
    config = configure(method, norm, weights, params, pool.num_runs)
    trained = None
    if config.method.trained:
        if qrels is None:
            raise RankwiseError(f"{config.method.name} learns from judgments: give qrels (training queries)")
        judgments = align_judgments(pool, load_qrels(qrels))
        trained = train(pool, scored, judgments, np.ones(pool.num_queries, dtype=bool), rel_level)
    fused = fused_scores(pool, scored, config, trained, missing)
    return fused_frame(pool, fused), pool.notes(), config


def fuse(
    runs: Any, method: str = "wsum", norm: str | None = "min-max", weights: Sequence[float] | None = None,
    params: Mapping[str, float] | None = None, depth: int | None = None, missing: MissingPolicy | str = "default",
    *, queries: QueryPolicy | str = "union", ties: TiePolicy | str = "docno_desc", qrels: Any = None,
    rel_level: int = 1, output: str | Path | None = None, name: str | None = None,
) -> Any:  # fmt: skip
    """Fuse ``runs`` into one run.

    ``runs``: a list of runs (or a dict name → run), each a path (TREC, ``.gz``, CSV/TSV/parquet), a polars or
    pandas DataFrame, an Arrow table or a ``{query_id: {doc_id: score}}`` dict, as :func:`rankwise.load_run` reads
    them (a duplicate document, a NaN score, a missing id: one line naming the file and line, or the row).

    - ``method``: one of :data:`rankwise.fusion.METHODS` (``rrf``, ``wsum``, ``CombMNZ``, ``bordafuse``, ...;
      ranx's names and the papers' both read) — each entry states its formula and reference (the paper, and
      ranx's ``ranx/fusion/<name>.py`` and trectools' ``trectools/fusion.py`` where they define it), and
      ``rankwise fuse --explain NAME`` prints it. Default ``wsum`` (ranx's).
    - ``norm``: ``min-max`` (default, ranx's), ``min-max-inverted``, ``max``, ``sum``, ``zmuv``, ``rank``,
      ``borda`` or ``none`` (:data:`rankwise.fusion.NORMALISATIONS`), per run and query.
    - ``weights``: one per run, for the weighted methods (``wsum``, ``wmnz``, ``mixed``, ``w_bordafuse``,
      ``w_condorcet``); default equal. ``params``: the method's parameters (``{"k": 60}`` for RRF), each checked.
    - ``depth``: only the top ``depth`` documents of each run (in its order under ``norm``) are fused.
    - ``missing``: what a run that missed a document contributes to a score-based method: ``default`` (the
      method's definition, ranx's: 0 in CombSUM and wsum, nothing in the others), ``zero``, ``run_min``.
    - ``queries``: ``union`` (default: a query some runs lack is fused over the runs that hold it) or
      ``intersection`` (only the queries every run holds).
    - ``ties``: the order of equal scores, in each run and in the fused run: ``docno_desc`` (trec_eval's, the
      default of ``evaluate``), ``docno_asc``, ``docno_desc_numeric``, ``input_order``.
    - ``qrels``: training judgments, for the methods that learn (BayesFuse, MAPFuse, PosFuse, ProbFuse, SegFuse,
      SlideFuse), relevant at grade >= ``rel_level``.

    The formulas and their references, one entry per method in :data:`rankwise.fusion.METHODS`: CombMIN/MAX/MED/
    SUM/ANZ/MNZ (Fox & Shaw, TREC-2 1993), CombGMNZ (Lee, SIGIR 1997), ISR/Log_ISR/LogN_ISR (Mourão et al., CMIG
    2015), RRF Σ 1/(k + p + 1) (Cormack et al., SIGIR 2009), RBC Σ (1 − φ) φ^p (Bailey et al., SIGIR 2017), WMNZ and
    Mixed (Wu & Crestani, CIKM 2002), BayesFuse and BordaFuse (Aslam & Montague, SIGIR 2001), MAPFuse and PosFuse
    (Lillis et al., SIGIR 2010), ProbFuse (Lillis et al., SIGIR 2006), SegFuse (Shokouhi, ECIR 2007), SlideFuse
    (Lillis et al., ECIR 2008), Condorcet (Montague & Aslam, CIKM 2002); sources ranx/fusion/<method>.py and
    ranx/normalization/*.py (ranx 0.3), trectools/fusion.py (combos, reciprocal_rank_fusion,
    rank_biased_precision_fusion), each proven equal in tests/fusion.

    Returns the fused run in the runs' kind: a dict ``{query_id: {doc_id: score}}`` (in rank order) for dicts, a
    pandas DataFrame for pandas, an Arrow table for Arrow, else a polars DataFrame with the columns query_id,
    doc_id, rank, score; ``output`` also writes it (TREC run lines tagged ``name``, or CSV/TSV/parquet by suffix).
    """
    frame, _, config = fuse_with_notes(runs, method, norm, weights, params, depth, missing, queries=queries,
                                       ties=ties, qrels=qrels, rel_level=rel_level)  # fmt: skip
    if output is not None:
        write_run(frame, output, name or config.method.name)
    return as_input_kind(frame, runs)


def as_input_kind(frame: pl.DataFrame, runs: Any) -> Any:
    """``frame`` in the kind of the runs (all dicts: a dict; all pandas: pandas; all Arrow: an Arrow table; else
    polars)."""
    sources = list(runs.values()) if isinstance(runs, Mapping) else list(runs)
    modules = {type(s).__module__.split(".")[0] for s in sources}
    if all(isinstance(s, Mapping) for s in sources):
        out: dict[str, dict[str, float]] = {}
        for q, d, s in zip(frame.get_column("query_id").cast(pl.String).to_list(),
                           frame.get_column("doc_id").cast(pl.String).to_list(),
                           frame.get_column("score").to_list()):  # fmt: skip
            out.setdefault(q, {})[d] = s
        return out
    if modules == {"pandas"}:
        return frame.to_pandas()
    if modules == {"pyarrow"}:
        return frame.to_arrow()
    return frame


def write_run(frame: pl.DataFrame, path: str | Path, tag: str) -> None:
    """Write a fused run: ``.csv``/``.tsv``/``.parquet`` as a table (query_id, doc_id, rank, score), anything else
    as TREC run lines ``qid Q0 docno rank score tag`` (scores in their shortest exact decimal form)."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix in (".csv", ".tsv"):
        frame.write_csv(path, separator="," if suffix == ".csv" else "\t")
        return
    if suffix in (".parquet", ".pq"):
        frame.write_parquet(path)
        return
    if not tag or any(c.isspace() for c in tag):
        raise InputError(f"run tag {tag!r} must be one word")
    for column in ("query_id", "doc_id"):
        ids = frame.get_column(column).cast(pl.String)
        if ids.str.contains(r"\s").any():
            bad = ids.filter(ids.str.contains(r"\s"))[0]
            raise InputError(f"{column} {bad!r} cannot be written as a TREC field (it holds white space)")
    lines = frame.select(pl.col("query_id").cast(pl.String), pl.lit("Q0").alias("q0"),
                         pl.col("doc_id").cast(pl.String), pl.col("rank").cast(pl.String),
                         pl.col("score").cast(pl.String), pl.lit(tag).alias("tag"))  # fmt: skip
    lines.write_csv(path, separator=" ", include_header=False, quote_style="never")


__all__ = ["Config", "as_input_kind", "configure", "fuse", "fuse_with_notes", "fused_frame", "fused_order",
           "fused_scores", "prepare", "write_run"]  # fmt: skip
