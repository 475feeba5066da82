"""ranx's Python API, computed by rankwise: ``Qrels`` and ``Run`` (from dicts, pandas DataFrames, TREC, gzipped
TREC, JSON and parquet files), ``evaluate``, ``compare`` (its :class:`~rankwise.compat.ranx_report.Report`:
``to_table``/``str``, ``to_latex``, ``to_dict``), ``fuse`` and ``optimize_fusion``. Reference: ranx (Bassani, ECIR
2022), version 0.3.21: ``ranx/data_structures/qrels.py``, ``run.py``, ``report.py``, ``ranx/meta/evaluate.py``,
``compare.py``, ``fuse.py``, ``optimize_fusion.py``, ``ranx/statistical_tests/*.py``.

What is claimed (tests/compat/test_compat_ranx.py, against ranx itself):

- ``evaluate`` returns ranx's values for its metric names (``ndcg@10``, ``map``, ``mrr``, ``precision``,
  ``recall@k``, ``f1``, ``hits``, ``hit_rate``, ``r-precision``, ``bpref``, ``dcg``/``ndcg_burges``, ``-lN``), read
  by rankwise's ``ranx`` dialect and computed by :func:`rankwise.evaluate`: a float (numpy's) for one metric, a dict
  for several, per-query arrays with ``return_mean=False`` (queries in ranx's order: sorted ids for ``Qrels``/``Run``,
  the qrels dict's order for dicts), means as ``numpy.mean`` of those arrays (a NaN bpref query makes the mean NaN,
  as in ranx), ``run.scores``/``run.mean_scores``/``run.std_scores`` filled as ranx fills them,
  ``make_comparable`` adding empty rankings and dropping unjudged queries, ranx's ``AssertionError`` when the query
  sets differ without it. ranx's own array input (one ``[[doc id, value], ...]`` array per query, the run's rows its
  ranking) is read too; equal to ranx where the qrels rows come by grade, descending (ranx's ideal DCG reads them
  in the order given, rankwise's sorts them).
- bpref per query as ranx's formula; ranx's batched bpref differs from call to call on the same input when it runs
  its parallel kernel over many queries (a race; one query at a time it is stable and equal): not copied.
- Tied scores: ranx sorts each query with numba's quicksort, which is an insertion sort — stable — up to 15
  documents: a ``Run`` keeps equal scores in input order, a plain dict given to ``evaluate`` in reverse input order
  (``ranx/utils.py`` ``descending_sort``: ascending argsort, reversed). rankwise ranks by ``ties="input_order"`` on
  the same order, so queries of up to 15 documents agree with ties; beyond that ranx's order of tied documents is
  its sort's accident and only tie-free rankings are claimed.
- ``compare``: means and win/tie/loss as ranx's; ``stat_test="student"`` p-values are ranx's (scipy ``ttest_rel``,
  rankwise's paired t-test), so significance and superscripts are too. ``"fisher"`` is rankwise's randomization
  test (exact over all sign flips up to 20 queries, else ``n_permutations`` sign flips from ``random_seed``): ranx
  draws its permutations from numba's generator, so its p and this one agree within Monte Carlo error, not to the
  digit. ``"tukey"`` is rankwise's randomised Tukey HSD, where ranx calls scipy's ``tukey_hsd``: not claimed equal.
- ``fuse`` and ``optimize_fusion`` delegate to :func:`rankwise.fuse` and :func:`rankwise.optimize_fusion`
  (proven equal to ranx's methods and search in tests/fusion); fused runs are named as ranx names them.
- Speed: ``Qrels``/``Run`` keep the dicts given (a copy per query, no numba typed dicts: 5,000 queries × 100
  documents in 0.01 s, ranx 0.5-0.7 s); ``evaluate`` hands rankwise flat columns gathered by ``itertools.chain``
  and ``numpy.fromiter`` (no Python code per entry): 0.15 s for four metrics there, ranx 0.13 s once its numba
  kernels are compiled (0.7 s before).
- Not copied either: ranx's ``from_df`` refuses pandas 3's string columns (its check wants ``object``).

Not claimed or not provided: ranx's numba typed lists as input, ``threads`` (rankwise needs none), ``rbp`` on
graded qrels (ranx weighs by the raw grade; rankwise's ``RBP`` by a 0/1 or scaled gain — equal on 0/1 qrels), LZ4
runs, ``from_ir_datasets``/``from_ranxhub`` (downloads), ``plot``, ``normalize``, the fusion methods that ranx trains
into its own arrays (``bayesfuse``, ``mapfuse``, ``posfuse``, ``probfuse``, ``segfuse``, ``slidefuse``: use
:func:`rankwise.fuse` with ``qrels``), the optimisation report of ``optimize_fusion`` (use
:func:`rankwise.optimize_fusion`'s), and ranx's internal modules (``ranx.metrics``, ``ranx.fusion``,
``ranx.normalization``). Not copied: ranx pairs a dict qrels with a dict run by position, not by query id, when
their key orders differ; rankwise pairs them by id.
"""

from __future__ import annotations

import gzip
import json
import os
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from itertools import chain
from typing import Any

import numpy as np
import polars as pl

from ..comparison.systems import compare as _compare
from ..fusion import fuse as _fuse
from ..fusion import optimize_fusion as _optimize_fusion
from ..io import load_qrels, load_run
from ..io.table import DOCID, QID, ROW, VALUE
from ..pipeline.evaluate import evaluate as _evaluate
from ..pipeline.options import EvaluationOptions
from .ranx_report import FrozensetDict, Report

DIALECT = "ranx"

FUSED_NAMES = {"wsum": "weighted_sum", "w_bordafuse": "weighted_bordafuse", "w_condorcet": "weighted_condorcet",
               "anz": "comb_anz", "gmnz": "comb_gmnz", "max": "comb_max", "med": "comb_med", "min": "comb_min",
               "mnz": "comb_mnz", "sum": "comb_sum"}  # fmt: skip
"""The name ranx gives a fused run, where it is not the method's (``ranx/fusion/*.py``)."""

TRAINED = ("bayesfuse", "mapfuse", "posfuse", "probfuse", "segfuse", "slidefuse")
"""Methods ranx fuses with arrays it trained (``params={"probs": ...}``): not provided here."""

WEIGHTED = ("wsum", "wmnz", "mixed", "w_bordafuse", "w_condorcet")
PARAMETER = {"rrf": "k", "rbc": "phi", "gmnz": "gamma", "logn_isr": "sigma"}
"""ranx's searched parameter of each method with one (``ranx/fusion_optimization/optimize_*.py``)."""


class _Ranked:
    """What ranx's ``Qrels`` and ``Run`` share: ``{query: {doc: value}}`` held as given (insertion order kept: it is
    ranx's order of equal scores), ranx's accessors, conversions and files."""

    _cast: type = float
    _trec_line = "{q} Q0 {d} {rank} {v} {name}"
    """A TREC line of :meth:`save` (ranx's: a run's line; the rank from 1 and the run's name as its tag)."""
    _file_kinds: tuple[str, ...] = ("json", "trec", "gz", "parquet")

    def __init__(self, data: Mapping[str, Mapping[str, Any]] | None = None, name: str | None = None) -> None:
        self._data: dict[str, dict[str, Any]] = {} if data is None else {q: dict(d) for q, d in data.items()}
        self.name = name
        self.sorted = data is not None
        """ranx's flag: false after :meth:`add_score` until :meth:`sort` (reading orders documents either way)."""

    def keys(self) -> Any:
        """The query ids, sorted (ranx keeps them sorted)."""
        return dict.fromkeys(sorted(self._data)).keys()

    def add_score(self, q_id: str, doc_id: str, score: float) -> None:
        """Add (or change) the value of one document of one query."""
        self._data.setdefault(q_id, {})[doc_id] = self._cast(score)
        self.sorted = False

    def add(self, q_id: str, doc_ids: Sequence[str], scores: Sequence[float]) -> None:
        """Add a query with its documents and values (replacing the query if present)."""
        self.add_multi([q_id], [doc_ids], [scores])

    def add_multi(self, q_ids: Sequence[str], doc_ids: Sequence[Sequence[str]],
                  scores: Sequence[Sequence[float]]) -> None:  # fmt: skip
        """Add several queries at once (each replaces the query if present)."""
        for q_id, docs, values in zip(q_ids, doc_ids, scores):
            self._data[q_id] = dict(zip(docs, map(self._cast, values)))
        self.sorted = True

    def get_query_ids(self) -> list[str]:
        """The query ids, sorted."""
        return sorted(self._data)

    def get_doc_ids_and_scores(self) -> list[dict[str, Any]]:
        """Each query's documents and values (as :meth:`__getitem__`), queries sorted."""
        return [self[q] for q in self.get_query_ids()]

    def sort(self) -> None:
        """Order the queries by id and each query's documents by value, descending (equal values in input order)."""
        self._data = {q: self[q] for q in self.get_query_ids()}
        self.sorted = True

    def to_dict(self) -> defaultdict[str, dict[str, Any]]:
        """``{query: {doc: value}}``, queries sorted, each query's documents by value descending (ranx's order)."""
        out: defaultdict[str, dict[str, Any]] = defaultdict(dict)
        for q in self.get_query_ids():
            out[q] = self[q]
        return out

    def to_dataframe(self) -> Any:
        """A pandas DataFrame with the columns ``q_id``, ``doc_id``, ``score`` in :meth:`to_dict`'s order."""
        import pandas as pd

        rows = [(q, d, s) for q, docs in self.to_dict().items() for d, s in docs.items()]
        return pd.DataFrame({"q_id": [r[0] for r in rows], "doc_id": [r[1] for r in rows],
                             "score": [r[2] for r in rows]})  # fmt: skip

    def save(self, path: str = "data.json", kind: str | None = None) -> None:
        """Write to ``path`` as JSON, parquet (pandas and pyarrow) or TREC lines (ranx's: no final newline), the
        kind inferred from the extension as ranx infers it (``.txt`` → trec, ``.parq`` → parquet)."""
        kind = get_file_kind(path, kind, self._file_kinds)
        if kind == "json":
            with open(path, "w") as f:
                f.write(json.dumps(self.to_dict(), indent=2))
        elif kind == "parquet":
            self.to_dataframe().to_parquet(path, index=False)
        elif kind == "lz4":
            raise ValueError("LZ4 runs are not provided by rankwise.compat.ranx: save as json, trec or parquet")
        else:
            with open(path, "w") as f:
                f.write(
                    "\n".join(
                        self._trec_line.format(q=q, d=d, v=v, rank=rank + 1, name=self.name)
                        for q, docs in self.to_dict().items()
                        for rank, (d, v) in enumerate(docs.items())
                    )
                )

    @property
    def size(self) -> int:
        """The number of queries."""
        return len(self._data)

    def __getitem__(self, q_id: str) -> dict[str, Any]:
        """The documents of ``q_id`` by value, descending (equal values in input order)."""
        docs = self._data[q_id]
        return dict(sorted(docs.items(), key=lambda item: -item[1]))

    def __len__(self) -> int:
        return len(self._data)

    def __repr__(self) -> str:
        return repr(self.to_dict())

    def __str__(self) -> str:
        return str(dict(self.to_dict()))


class Qrels(_Ranked):
    """ranx's ``Qrels``: judgments ``{query: {doc: grade}}`` (integer grades). Reference: ranx
    ``ranx/data_structures/qrels.py``."""

    _cast = int
    _trec_line = "{q} 0 {d} {v}"

    @property
    def qrels(self) -> dict[str, dict[str, int]]:
        """The judgments as held (ranx: its numba typed dict)."""
        return self._data

    def set_relevance_level(self, rel_lvl: int = 1) -> None:
        """Subtract ``rel_lvl - 1`` from every grade (ranx's ``set_relevance_level``)."""
        self._data = {q: {d: g - (rel_lvl - 1) for d, g in docs.items()} for q, docs in self._data.items()}

    @staticmethod
    def from_dict(d: Mapping[str, Mapping[str, int]]) -> Qrels:
        """``Qrels(d)``."""
        return Qrels(d)

    @staticmethod
    def from_file(path: str, kind: str | None = None) -> Qrels:
        """A JSON, TREC (``qid 0 docno grade``) or gzipped TREC qrels file, the kind from the extension as ranx
        infers it; TREC files are read by :func:`rankwise.load_qrels`."""
        kind = get_file_kind(path, kind, Qrels._file_kinds)
        if kind == "json":
            with open(path) as f:
                return Qrels(json.load(f))
        if kind == "parquet":
            return Qrels.from_parquet(path)
        return Qrels(_table_dict(load_qrels(path)))

    @staticmethod
    def from_df(df: Any, q_id_col: str = "q_id", doc_id_col: str = "doc_id", score_col: str = "score") -> Qrels:
        """A pandas DataFrame with string id columns and an int64 grade column (ranx's checks, same messages)."""
        _check_frame(df, q_id_col, doc_id_col, score_col, np.int64, "int")
        return Qrels(_frame_dict(df, q_id_col, doc_id_col, score_col))

    @staticmethod
    def from_parquet(path: str, q_id_col: str = "q_id", doc_id_col: str = "doc_id", score_col: str = "score",
                     pd_kwargs: Mapping[str, Any] | None = None) -> Qrels:  # fmt: skip
        """A parquet file read by ``pandas.read_parquet``, then :meth:`from_df`."""
        import pandas as pd

        return Qrels.from_df(pd.read_parquet(path, **dict(pd_kwargs or {})), q_id_col, doc_id_col, score_col)


class Run(_Ranked):
    """ranx's ``Run``: scores ``{query: {doc: score}}`` with a ``name``; :func:`evaluate` fills ``scores``
    (``{metric: {query: value}}``), ``mean_scores`` and ``std_scores``. Reference: ranx
    ``ranx/data_structures/run.py``."""

    _file_kinds = ("json", "trec", "lz4", "gz", "parquet")

    def __init__(self, run: Mapping[str, Mapping[str, float]] | None = None, name: str | None = None) -> None:
        super().__init__(run, name)
        self.metadata: dict[str, Any] = {}
        self.scores: defaultdict[str, dict[str, float]] = defaultdict(dict)
        self.mean_scores: dict[str, float] = {}
        self.std_scores: dict[str, float] = {}

    @property
    def run(self) -> dict[str, dict[str, float]]:
        """The scores as held (ranx: its numba typed dict)."""
        return self._data

    def make_comparable(self, qrels: Qrels) -> Run:
        """Add an empty ranking for every judged query the run lacks and drop the queries ``qrels`` lacks."""
        judged = qrels.qrels
        self._data = {q: self._data.get(q, {}) for q in sorted(judged)}
        return self

    @staticmethod
    def from_dict(d: Mapping[str, Mapping[str, float]], name: str | None = None) -> Run:
        """``Run(d, name)``."""
        return Run(d, name)

    @staticmethod
    def from_file(path: str, kind: str | None = None, name: str | None = None) -> Run:
        """A JSON, TREC or gzipped TREC run file (read by :func:`rankwise.load_run`), the kind from the extension as
        ranx infers it; a TREC run is named by its tag unless ``name`` is given."""
        kind = get_file_kind(path, kind, Run._file_kinds)
        if kind == "json":
            with open(path) as f:
                return Run(json.load(f), name)
        if kind == "parquet":
            return Run.from_parquet(path, name=name)
        if kind == "lz4":
            raise ValueError("LZ4 runs are not provided by rankwise.compat.ranx: convert the run to json or trec")
        table = load_run(path)
        return Run(_table_dict(table), name if name is not None else _last_tag(path, kind))

    @staticmethod
    def from_df(df: Any, q_id_col: str = "q_id", doc_id_col: str = "doc_id", score_col: str = "score",
                name: str | None = None) -> Run:  # fmt: skip
        """A pandas DataFrame with string id columns and a float64 score column (ranx's checks, same messages)."""
        _check_frame(df, q_id_col, doc_id_col, score_col, np.float64, "float")
        return Run(_frame_dict(df, q_id_col, doc_id_col, score_col), name)

    @staticmethod
    def from_parquet(path: str, q_id_col: str = "q_id", doc_id_col: str = "doc_id", score_col: str = "score",
                     pd_kwargs: Mapping[str, Any] | None = None, name: str | None = None) -> Run:  # fmt: skip
        """A parquet file read by ``pandas.read_parquet``, then :meth:`from_df`."""
        import pandas as pd

        return Run.from_df(pd.read_parquet(path, **dict(pd_kwargs or {})), q_id_col, doc_id_col, score_col, name)


def get_file_kind(path: str = "run.json", kind: str | None = None,
                  allowed: Iterable[str] = ("json", "trec", "lz4", "gz", "parquet")) -> str:  # fmt: skip
    """ranx's ``get_file_kind``: the extension (``txt`` → ``trec``, ``parq`` → ``parquet``) unless ``kind``, one of
    ``allowed`` (ranx's ``AssertionError`` otherwise). Reference: ranx ``ranx/data_structures/run.py``."""
    if kind is None:
        kind = os.path.splitext(path)[1][1:]
        kind = {"txt": "trec", "parq": "parquet"}.get(kind, kind)
    allowed = tuple(allowed)
    assert kind in allowed, (
        "Error `kind` must be " + ", ".join(f"'{k}'" for k in allowed[:-1]) + f", or '{allowed[-1]}'"
    )
    return kind


def _table_dict(table: Any) -> dict[str, dict[str, Any]]:
    """``{query: {doc: value}}`` of a rankwise table, in input order."""
    frame = table.frame.sort(ROW)
    out: dict[str, dict[str, Any]] = {}
    for q, d, v in zip(*(frame.get_column(c).cast(str).to_list() if c != VALUE else frame.get_column(c).to_list()
                         for c in (QID, DOCID, VALUE))):  # fmt: skip
        out.setdefault(q, {})[d] = v
    return out


def _last_tag(path: str, kind: str) -> str | None:
    """The run tag of a TREC run's last line (ranx names a run by the tag it reads last)."""
    opener: Any = gzip.open if kind == "gz" else open
    with opener(path, "rt") as f:
        tag = None
        for line in f:
            fields = line.split()
            tag = fields[5] if len(fields) > 5 else tag
    return tag


def _check_frame(df: Any, q_col: str, d_col: str, s_col: str, dtype: Any, label: str) -> None:
    """ranx's dtype checks of a DataFrame (its messages)."""
    assert _text(df[q_col]), "DataFrame Query IDs column dtype must be `object` (string)"
    assert _text(df[d_col]), "DataFrame Document IDs column dtype must be `object` (string)"
    assert df[s_col].dtype == dtype, f"DataFrame scores column dtype must be `{label}`"


def _text(column: Any) -> bool:
    """Whether a pandas column holds strings: ``object`` (ranx's check), or pandas 3's ``str`` dtype, which ranx's
    check refuses (not copied)."""
    return bool(column.dtype == "O" or str(column.dtype) in ("str", "string"))


def _frame_dict(df: Any, q_col: str, d_col: str, s_col: str) -> dict[str, dict[str, Any]]:
    """``{query: {doc: value}}`` of a DataFrame, queries sorted, documents in row order (pandas ``groupby``)."""
    out: dict[str, dict[str, Any]] = {}
    for q, d, s in zip(df[q_col].tolist(), df[d_col].tolist(), df[s_col].tolist()):
        out.setdefault(q, {})[d] = s
    return {q: out[q] for q in sorted(out)}


def _from_arrays(rows: Any, cast: type = float) -> dict[str, dict[str, Any]] | None:
    """ranx's array input, one ``[[doc id, value], ...]`` array per query (a 3-d numpy array or a list of 2-d ones,
    numba typed lists too), as ``{"0": {doc: value}, ...}``: a run's rows are its ranking as given, so its values
    become the row order (ranx does not sort arrays), a qrels' values ``cast`` to int; None for any other input."""
    if isinstance(rows, (Mapping, _Ranked)) or (not isinstance(rows, (np.ndarray, Sequence)) and not hasattr(
            rows, "_numba_type_")):  # fmt: skip
        return None
    out = {}
    for i, block in enumerate(rows):
        block = np.asarray(block, dtype=np.float64).reshape(-1, 2)
        out[str(i)] = dict(zip(map(str, block[:, 0].tolist()), block[:, 1].astype(cast).tolist()))
    return out


def _inputs(qrels: Any, run: Any) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, Any]], list[str]]:
    """The judgments and scores rankwise evaluates and ranx's query order. A plain dict run holds equal scores in
    reverse input order, as ranx's ``descending_sort`` leaves them."""
    arrays = _from_arrays(qrels, int)
    judged = arrays if arrays is not None else qrels.qrels if isinstance(qrels, Qrels) else dict(qrels)
    ranked = _from_arrays(run)
    scores: dict[str, dict[str, Any]]
    if ranked is not None:
        scores = {q: dict(zip(docs, range(len(docs), 0, -1))) for q, docs in ranked.items()}
    elif isinstance(run, Run):
        scores = run.run
    else:
        scores = {q: dict(reversed(docs.items())) for q, docs in run.items()}
    order = sorted(judged) if isinstance(qrels, Qrels) else list(judged)
    return judged, scores, order


def _check_keys(qrels: Any, run: Any) -> None:
    if _from_arrays(qrels) is not None or _from_arrays(run) is not None:
        return  # ranx checks dicts, Qrels and Runs only
    assert set(qrels.keys()) == set(run.keys()), (
        "Qrels and Run query ids do not match. Pass `make_comparable=True` to add empty results for queries missing "
        "from the run and remove those not appearing in qrels."
    )


def _metric_list(metrics: str | Sequence[str]) -> list[str]:
    out = [metrics] if isinstance(metrics, str) else list(metrics)
    assert all(isinstance(m, str) for m in out), "Metrics error"
    return out


def _flat(data: Mapping[str, Mapping[str, Any]], value: str, dtype: type) -> pl.DataFrame:
    """``{query: {doc: value}}`` as one polars frame (query_id, doc_id, ``value``), rows in the dicts' order. Keys and
    values are gathered by ``itertools.chain`` and ``numpy.fromiter`` (C loops): no Python code runs per entry."""
    sizes = np.fromiter(map(len, data.values()), dtype=np.int64, count=len(data))
    queries = np.repeat(np.array(list(data), dtype=object), sizes).tolist()
    docs = list(chain.from_iterable(data.values()))
    stream = chain.from_iterable(d.values() for d in data.values())
    values: np.ndarray = np.fromiter(stream, dtype=dtype, count=int(sizes.sum()))
    ids = [pl.Series(name, column, dtype=pl.String, strict=False) for name, column in (("query_id", queries),
                                                                                      ("doc_id", docs))]  # fmt: skip
    return pl.DataFrame([*ids, pl.Series(value, values)])


def _per_query(qrels: Any, run: Any, metrics: list[str]) -> tuple[dict[str, np.ndarray], list[str]]:
    """Each metric's per-query values in ranx's query order (a query without judgments or ranking scores 0)."""
    judged, scores, order = _inputs(qrels, run)
    result = _evaluate(_flat(judged, "relevance", np.int64), _flat(scores, "score", np.float64), metrics,
                       dialect=DIALECT, ties="input_order", queries="qrels")  # fmt: skip
    position = {q: i for i, q in enumerate(result.query_ids)}
    rows = np.array([position.get(q, -1) for q in order], dtype=np.int64)
    values = np.concatenate([result.values, np.zeros((len(metrics), 1))], axis=1)[:, rows]
    return {m: values[i] for i, m in enumerate(result.keys)}, order


def evaluate(qrels: Qrels | Mapping[str, Mapping[str, int]], run: Run | Mapping[str, Mapping[str, float]],
             metrics: str | Sequence[str], return_mean: bool = True, return_std: bool = False, threads: int = 0,
             save_results_in_run: bool = True, make_comparable: bool = False) -> Any:  # fmt: skip
    """ranx's ``evaluate``: each metric (ranx's names, read by rankwise's ``ranx`` dialect) over every query.

    Per query as ranx defines each metric (``ranx/metrics/*.py``): e.g. ``ndcg@k`` = DCG@k / IDCG@k with linear
    gains (Järvelin and Kekäläinen, TOIS 2002), ``map@k`` = Σ_{i≤k, rel} P@i / |relevant|, ``mrr@k`` = 1/rank of the
    first relevant document; ``-lN`` makes grades below N non-relevant. ``return_mean``: the mean over queries
    (``numpy.mean``; with ``return_std`` also ``numpy.std``), else each metric's per-query array in ranx's query
    order. One metric gives its value, several a dict keyed by name. A :class:`Run` gets ``scores``,
    ``mean_scores`` (and ``std_scores``) unless ``save_results_in_run`` is false; ``make_comparable`` first adds
    empty rankings for judged queries the run lacks and drops queries the qrels lack; without it the query sets must
    match (ranx's ``AssertionError``). ``threads`` is accepted and unused. Reference: ranx ``ranx/meta/evaluate.py``.
    """
    del threads  # rankwise's evaluation needs no thread setting
    return_std = return_std and return_mean
    if make_comparable and isinstance(qrels, Qrels) and isinstance(run, Run):
        run = run.make_comparable(qrels)
    _check_keys(qrels, run)
    names = _metric_list(metrics)
    values, order = _per_query(qrels, run, names)
    if isinstance(run, Run) and save_results_in_run:
        for m, per_query in values.items():
            run.mean_scores[m] = np.mean(per_query)
            if return_std:
                run.std_scores[m] = np.std(per_query)
            run.scores[m].update(zip(order, per_query.tolist()))
    out: dict[str, Any] = dict(values)
    if return_mean:
        out = {m: {"mean": np.mean(v), "std": np.std(v)} if return_std else np.mean(v) for m, v in values.items()}
    return out[names[-1]] if len(names) == 1 else out


_TESTS = {"student": "t", "fisher": "randomization", "tukey": "tukey"}


def compare(qrels: Qrels, runs: Sequence[Run], metrics: str | Sequence[str], stat_test: str = "student",
            n_permutations: int = 1000, max_p: float = 0.01, random_seed: int = 42, threads: int = 0,
            rounding_digits: int = 3, show_percentages: bool = False,
            make_comparable: bool = False) -> Report:  # fmt: skip
    """ranx's ``compare``: every run evaluated (its ``scores`` filled, as :func:`evaluate`), then every pair of runs
    tested on every metric; a pair is significant when p ≤ ``max_p``.

    ``stat_test``: ``student`` (two-sided paired t-test on the per-query values: t = d̄ / (s_d / √n), n − 1 degrees of
    freedom, ranx's scipy ``ttest_rel``), ``fisher`` (Fisher's randomization test, Smucker et al., CIKM 2007:
    rankwise's, exact up to 20 queries, else ``n_permutations`` sign flips seeded by ``random_seed``) or ``tukey``
    (rankwise's randomised Tukey HSD). Win/tie/loss count the queries where a run is higher, equal, lower. Runs are
    named by their ``name``, else ``run_1``, ``run_2``, .... Computed by :func:`rankwise.compare` (``pairs="all"``, no
    correction) under the ``ranx`` dialect. Reference: ranx ``ranx/meta/compare.py``, ``ranx/statistical_tests``.
    """
    if stat_test not in _TESTS:
        raise NotImplementedError(f"Statistical test `{stat_test}` not supported.")
    del threads
    names = _metric_list(metrics)
    models = [run.name if run.name is not None else f"run_{i + 1}" for i, run in enumerate(runs)]
    for run in runs:
        if make_comparable:
            run.make_comparable(qrels)
        _check_keys(qrels, run)
    judged, _, order = _inputs(qrels, {})
    frames = [_flat(run.run, "score", np.float64) for run in runs]
    tested = _compare(_flat(judged, "relevance", np.int64), frames, names,
                      names=[f"s{i}" for i in range(len(runs))], dialect=DIALECT, ties="input_order", queries="qrels",
                      test=_TESTS[stat_test], pairs="all", correction="none", interval="t",
                      resamples=max(n_permutations, 1), seed=random_seed)  # fmt: skip
    position = {q: i for i, q in enumerate(tested.query_ids)}
    values = tested.values[:, :, [position[q] for q in order]]
    per_query = [{m: values[s, k] for k, m in enumerate(tested.keys)} for s in range(len(runs))]
    for run, scores in zip(runs, per_query):
        for m, v in scores.items():
            run.mean_scores[m] = np.mean(v)
            run.scores[m].update(zip(order, v.tolist()))
    results = {model: {m: float(np.mean(values[m])) for m in names} for model, values in zip(models, per_query)}
    comparisons = FrozensetDict()
    win_tie_loss: dict[tuple[str, str], dict[str, dict[str, int]]] = {}
    for i, j in ((i, j) for i in range(len(runs)) for j in range(len(runs)) if i != j):
        if i < j:
            p = {m: tested.pair(f"s{j}", f"s{i}", m).p_value for m in names}
            comparisons[models[i], models[j]] = {m: {"p_value": p[m], "significant": bool(p[m] <= max_p)}
                                                 for m in names}  # fmt: skip
        a, b = per_query[i], per_query[j]
        win_tie_loss[(models[i], models[j])] = {m: {"W": int(np.sum(a[m] > b[m])), "T": int(np.sum(a[m] == b[m])),
                                                    "L": int(np.sum(a[m] < b[m]))} for m in names}  # fmt: skip
    return Report(model_names=models, results=results, comparisons=comparisons, metrics=names, max_p=max_p,
                  win_tie_loss=win_tie_loss, rounding_digits=rounding_digits, show_percentages=show_percentages,
                  stat_test=stat_test)  # fmt: skip


def _check_runs(runs: Sequence[Run]) -> None:
    assert len(runs) > 1, "Only one run provided"
    for i, run_i in enumerate(runs):
        for j, run_j in enumerate(runs[i + 1 :]):
            assert set(run_i.keys()) == set(run_j.keys()), f"Runs {i} and {j} query ids do not match"


def _method(method: str) -> str:
    if method in TRAINED:
        raise ValueError(f"{method}: ranx fuses with arrays its own training returns; rankwise.compat.ranx does not "
                         "provide them: use rankwise.fuse(runs, method, qrels=training_qrels)")  # fmt: skip
    return method


def fuse(runs: Sequence[Run], norm: str | None = "min-max", method: str = "wsum",
         params: Mapping[str, Any] | None = None) -> Run:  # fmt: skip
    """ranx's ``fuse``: each run normalised per query by ``norm`` (``min-max``: (s − min) / (max − min); ``max``,
    ``sum``, ``zmuv``, ``rank``, ``borda``, ``min-max-inverted``, or None), then combined by ``method`` with
    ``params`` (``{"weights": [...]}`` for ``wsum`` Σ wᵢ sᵢ, ``{"k": 60}`` for ``rrf`` Σ 1 / (k + rankᵢ), ...): every
    method's formula and paper is its entry in :data:`rankwise.fusion.METHODS`. The runs must hold the same queries.
    Computed by :func:`rankwise.fuse` (equal ties kept in each run's order); the fused run is named as ranx names it
    (``weighted_sum`` for wsum). Reference: ranx ``ranx/meta/fuse.py``, ``ranx/fusion/*.py``."""
    _check_runs(runs)
    given = dict(params or {})
    weights = given.pop("weights", None)
    name = given.pop("name", FUSED_NAMES.get(method, method))
    fused = _fuse([run.run for run in runs], _method(method), norm, weights=weights, params=given or None,
                  ties="input_order")  # fmt: skip
    return Run(fused, name)


def optimize_fusion(qrels: Qrels, runs: Sequence[Run], norm: str | None = "min-max", method: str = "wsum",
                    metric: str = "ndcg", return_optimization_report: bool = False, rounding_digits: int = 3,
                    show_percentages: bool = False, **kwargs: Any) -> dict[str, Any]:  # fmt: skip
    """ranx's ``optimize_fusion``: the parameters of ``method`` with the highest mean ``metric`` (ranx's name) of the
    fused run against ``qrels``, as ranx returns them: ``{"weights": (w₁, ..., wₙ)}`` for the weighted methods
    (every vector of multiples of ``step``, default 0.1, summing to 1), ``{"k": ...}`` for ``rrf`` (10, 20, ...,
    100), ``{"phi": ...}``, ``{"gamma": ...}``, ``{"sigma": ...}`` for ``rbc``, ``gmnz``, ``logn_isr``. Computed by
    :func:`rankwise.optimize_fusion` (exact weight grid; among equal means the last configuration tried, as ranx's
    ``score >= best_score``). ``min_k``, ``max_k``, ``step`` set rrf's grid as ranx's.
    ``show_progress`` is accepted and unused; the optimisation report is :func:`rankwise.optimize_fusion`'s (not
    provided here). Reference: ranx ``ranx/meta/optimize_fusion.py``, ``ranx/fusion_optimization/*.py``."""
    del rounding_digits, show_percentages
    if return_optimization_report:
        raise ValueError("the optimisation report is not provided by rankwise.compat.ranx: rankwise.optimize_fusion"
                         " returns every configuration tried with its mean (FusionSearch.to_polars())")  # fmt: skip
    _check_runs(runs)
    for i, run in enumerate(runs):
        assert set(run.keys()) == set(qrels.keys()), f"Run {i} and Qrels query ids do not match"
    kwargs.pop("show_progress", None)
    denominator = 10
    if method == "rrf":  # ranx's optimize_rrf: k from min_k to max_k by step
        kwargs["k"] = list(range(int(kwargs.pop("min_k", 10)), int(kwargs.pop("max_k", 100)) + 1,
                                 int(kwargs.pop("step", 10))))  # fmt: skip
    else:  # ranx's optimize_weights: weights in multiples of step
        denominator = round(1 / float(kwargs.pop("step", 0.1)))
    measure = EvaluationOptions.from_arguments({"dialect": DIALECT}).plan([metric]).pairs[0][1]
    search = _optimize_fusion(qrels.qrels, [run.run for run in runs], _method(method), norm, measure,
                              denominator=denominator, params=kwargs or None, ties="input_order")  # fmt: skip
    means = np.nan_to_num(np.asarray(search.scores, dtype=np.float64), nan=-np.inf)
    best = search.configs[len(means) - 1 - int(np.argmax(means[::-1]))]  # ranx keeps the last of equal means
    if method in WEIGHTED:
        return {"weights": tuple(float(w) for w in best.weights)}
    if method in PARAMETER:
        return {PARAMETER[method]: best.params[PARAMETER[method]]}
    return dict(best.params)


__all__ = ["Qrels", "Report", "Run", "compare", "evaluate", "fuse", "get_file_kind", "optimize_fusion"]
