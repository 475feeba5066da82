"""What ``rankwise trec_eval`` adds to an evaluation to print trec_eval's output: the placeholder rankings of
``-c``, ``-N`` for ``utility``, relevance strings (``relstring``), z-scores (``-Z``) and trec_eval's layout (the
judged-only runs of ``-J`` are :func:`rankwise.trec_eval.judgments.judged_only`).

trec_eval's layout: with ``-q``, for each query (in query order) a line per measure in table order,
``%-22s\\t%s\\t%6.4f`` (counts ``%ld``, relstring ``'%s'``), leaving out ``runid``, ``num_q``, ``gm_map`` and
``gm_bpref``; then the summary lines under the query ``all``, ``runid`` first with the run's tag.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import polars as pl
else:
    from ..io.lazy import polars as pl

from ..engine.aligned import UNJUDGED, align
from ..io.table import DOCID, QID, ROW, VALUE, Table
from ..measures.trec_names import NOT_PER_QUERY, SUMMARY_ONLY
from ..pipeline.result import EvaluationResult
from ..policies import Policies
from .request import TrecEvalMeasure

MISSING_ZSCORE = -1000000.0
"""trec_eval's value for a query or measure missing from the z-score file."""
PLACEHOLDER_DOC = "ceci_nest_pas_un_docno"
"""The one document trec_eval ranks (score 1.0) for a judged query missing from the run under ``-c``."""


def with_placeholders(qrels: Table, run: Table) -> tuple[Table, frozenset[str]]:
    """trec_eval ``-c``: each judged query missing from the run is evaluated on a ranking of one unjudged
    placeholder document (then some of its values are set to 0: :attr:`TrecEvalOutput.placeholder_zeroed`).
    Returns the run with these rows added and the ids of those queries."""
    qrels, run = qrels.with_text_ids(), run.with_text_ids()
    judged = qrels.frame.get_column(QID).unique()
    missing = judged.filter(~judged.is_in(run.frame.get_column(QID).implode()))
    if not len(missing):
        return run, frozenset()
    start = run.frame.height
    added = {QID: missing, DOCID: PLACEHOLDER_DOC, VALUE: 1.0, ROW: pl.int_range(start, start + len(missing),
                                                                                  eager=True)}  # fmt: skip
    rows = pl.DataFrame({c: added[c] for c in run.frame.columns})
    frame = pl.concat([run.frame, rows.cast(run.frame.schema)])
    return dataclasses.replace(run, frame=frame), frozenset(missing.to_list())


def utility_with_collection(lines: Sequence[TrecEvalMeasure], collection: int | None) -> list[TrecEvalMeasure]:
    """The lines with trec_eval's ``-N`` (documents in the collection) given to ``utility``."""
    if collection is None:
        return list(lines)
    out = []
    for line in lines:
        if line.root == "utility" and line.measure is not None:
            measure = dataclasses.replace(line.measure, params=(*line.measure.params, ("docs", collection)))
            line = dataclasses.replace(line, measure=measure)
        out.append(line)
    return out


def relstrings(
    qrels: Table, run: Table, result: EvaluationResult, lines: Sequence[TrecEvalMeasure], policies: dict[str, Any]
) -> dict[str, list[str]]:
    """Per ``relstring`` line, the relevance string of each query of ``result``: the grades of its top n documents,
    ``0``-``9`` (``>`` above 9), ``-`` for a document not in the qrels, ``.`` for one graded below 0."""
    wanted = [line for line in lines if line.root == "relstring"]
    if not wanted:
        return {}
    aligned = align(qrels, run, Policies(**{k: v for k, v in policies.items() if v is not None}), allow_empty=True)
    grade = aligned.grade
    codes = np.where(grade > 9, ord(">"), np.where(grade >= 0, ord("0") + np.clip(grade, 0, 9), ord(".")))
    codes = np.where(grade == UNJUDGED, ord("-"), codes).astype(np.uint8)
    by_query = dict(zip(aligned.query_ids, range(len(aligned.query_ids))))
    out = {}
    for line in wanted:
        keep = codes[aligned.rank <= line.relstring_length]
        texts = keep.tobytes().decode("ascii")
        counts = np.bincount(aligned.qidx[aligned.rank <= line.relstring_length], minlength=aligned.num_queries)
        ends = np.cumsum(counts)
        pieces = [texts[end - n : end] for end, n in zip(ends.tolist(), counts.tolist())]
        out[line.name] = [pieces[by_query[q]] if q in by_query else "" for q in result.query_ids]
    return out


@dataclass(frozen=True)
class TrecEvalOutput:
    """An evaluation with trec_eval's lines: its values per line and query, and how trec_eval prints them."""

    result: EvaluationResult
    lines: Sequence[TrecEvalMeasure]
    strings: dict[str, list[str]]
    zscores: dict[tuple[str, str], tuple[float, float]] | None = None
    shown: np.ndarray | None = None
    """Per query of ``result``: whether trec_eval evaluates it (``-J`` evaluates the queries of the run before
    its unjudged documents were removed, some of them left empty); None: all."""
    judged_relevant: int | None = None
    """With ``-c``: trec_eval's summary of num_rel, the qrels lines of every query graded above 0 (whatever -l)."""
    placeholder: np.ndarray | None = None
    """Per query of ``result``: ranked only the placeholder document of a judged query missing from the run
    (``-c``, see :func:`with_placeholders`)."""
    computed: dict[str, np.ndarray] | None = None
    """Per line name, values per query of ``result`` computed apart from it: the preference measures and those
    averaged over judgment groups."""
    emptied_num_rel: np.ndarray | None = None
    """With ``-J``, per query of ``result``: its number of relevant documents when ``-J`` left its ranking empty,
    else −1 (see :meth:`_emptied`)."""

    @property
    def placeholder_zeroed(self) -> frozenset[str]:
        """The lines trec_eval sets to 0 (``relstring``: to '') for a query missing from the run, by their exact
        names (so that ``utility_1,-1,0,0``, ``rbp_resid_p=0.8`` or ``relstring_5`` keep their value on the
        placeholder ranking, as in trec_eval 10's main loop)."""
        if self.placeholder is None:
            return frozenset()
        names = [line.name for line in self.lines]
        return frozenset(n for n in names if n in ("num_ret", "utility", "rbp_resid", "relstring")
                         or n.startswith("unj"))  # fmt: skip

    def _values(self) -> dict[str, np.ndarray]:
        """Per numeric line, its per-query values (z-scores with ``-Z``)."""
        index = {m: i for i, m in enumerate(self.result.measures)}
        out = {}
        for line in self.lines:
            if line.prints_text:
                continue
            if self.computed is not None and line.name in self.computed:
                values = self.computed[line.name]
            else:
                assert line.measure is not None  # a numeric line of the evaluation
                values = self.result.values[index[line.measure]]
            values = self._emptied(line, values)
            if line.root in SUMMARY_ONLY:
                values = np.log(np.maximum(values, 1e-5))  # trec_eval keeps log values and averages them
            if self.placeholder is not None and line.name in self.placeholder_zeroed:
                values = np.where(self.placeholder, 0.0, values)
            if self.zscores is not None and line.root != "num_q":  # num_q counts the queries, never a z-score
                values = self._zscored(line.name, values)
            out[line.name] = values if self.shown is None else values[self.shown]
        return out

    def _emptied(self, line: TrecEvalMeasure, values: np.ndarray) -> np.ndarray:
        """trec_eval's interpolated precision of a ranking ``-J`` left empty: it starts from num_rel_ret / num_ret
        = 0/0 (m_iprec_at_recall.c, m_11pt_avg.c), so every recall level x whose cutoff lround(x · R) is 0 gets NaN
        (and 11pt_avg, their mean, NaN when one of its levels does); the others stay 0."""
        if self.emptied_num_rel is None or line.root not in ("iprec_at_recall", "11pt_avg") or line.measure is None:
            return values
        levels = [float(line.measure.cutoff or 0.0)] if line.root == "iprec_at_recall" else \
            list(line.measure.get("levels"))  # type: ignore[arg-type]  # fmt: skip
        relevant = self.emptied_num_rel
        zero_cut = np.zeros(len(values), dtype=bool)
        for level in levels:
            zero_cut |= np.floor(level * np.maximum(relevant, 0) + 0.5) == 0  # lround of a non-negative number
        return np.where((relevant >= 0) & zero_cut, np.nan, values)

    @property
    def query_ids(self) -> list[str]:
        """The queries trec_eval evaluates, in order."""
        ids = list(self.result.query_ids)
        return ids if self.shown is None else [q for q, keep in zip(ids, self.shown) if keep]

    def _zscored(self, name: str, values: np.ndarray) -> np.ndarray:
        """(value − mean) / stddev per query; 0 for a stddev of 0 when the value is the mean; else, and for a query
        or measure missing from the file, trec_eval's −1000000."""
        assert self.zscores is not None
        out = np.full(len(values), MISSING_ZSCORE)
        for j, qid in enumerate(self.result.query_ids):  # before the selection of shown queries
            found = self.zscores.get((qid, name))
            if found is None:
                continue
            mean, stddev = found
            if stddev:
                out[j] = (values[j] - mean) / stddev
            elif values[j] == mean:
                out[j] = 0.0
        return out

    def _summary(self, line: TrecEvalMeasure, values: np.ndarray) -> float:
        """trec_eval's summary: a sum for counts, exp of the mean log for gm_ measures, else the mean; with ``-c``
        the mean is over every judged query."""
        total = float(np.cumsum(values)[-1]) if len(values) else 0.0  # in query order, as trec_eval accumulates
        if line.is_count:
            return total
        mean = total / len(values) if len(values) else 0.0
        return float(np.exp(mean)) if line.root in SUMMARY_ONLY else mean

    def _shown(self, items: list) -> list:
        return items if self.shown is None else [item for item, keep in zip(items, self.shown) if keep]

    def text(self, per_query: bool, summary: bool) -> str:
        """The output trec_eval prints (with ``-Z``: each name after a ``Z``, every value ``%6.4f``)."""
        values = self._values()
        rows: list[str] = []
        z = "Z" if self.zscores is not None else ""
        if per_query:
            strings = {name: self._shown(texts) for name, texts in self.strings.items()}
            placeholder = self._shown(list(self.placeholder)) if self.placeholder is not None else None
            columns: list[tuple[str, list[str]]] = []  # per line printed per query: its head, then each query's value
            for line in self.lines:
                if line.root in NOT_PER_QUERY:
                    continue
                if line.prints_text:  # a -c placeholder query: its one document not in the pool, '-', except
                    # under the exact name "relstring", which trec_eval clears (as placeholder_zeroed)
                    texts = strings[line.name]
                    clears = placeholder is not None and line.name in self.placeholder_zeroed
                    cells = [f"'{'' if clears and placeholder[j] else text}'"  # type: ignore[index]
                             for j, text in enumerate(texts)]  # fmt: skip
                    columns.append((f"{line.name:<22}\t", cells))
                else:
                    columns.append((f"{z}{line.name:<22}\t", _numbers(values[line.name], line.is_count and not z)))
            for j, qid in enumerate(self.query_ids):  # query by query, each query's lines in the order asked
                rows.extend(f"{head}{qid}\t{cells[j]}\n" for head, cells in columns)
        if summary:
            for line in self.lines:
                if line.root == "runid":
                    rows.append(_row("runid", "all", self.result.run_name or ""))
                elif not line.prints_text:
                    total = self._summary(line, values[line.name])
                    if line.root == "num_rel" and self.judged_relevant is not None and not z:
                        total = float(self.judged_relevant)
                    rows.append(z + _row(line.name, "all", _number(total, line.is_count and not z)))
        return "".join(rows)


def _row(name: str, qid: str, value: str) -> str:
    return f"{name:<22}\t{qid}\t{value}\n"


def _numbers(values: np.ndarray, is_count: bool) -> list[str]:
    """:func:`_number` of each value, formatted in one pass over a list (no call per value)."""
    if is_count:
        return [str(int(v)) if math.isfinite(v) else "0" for v in values.tolist()]
    return ["  -nan" if v != v else f"{v:6.4f}" for v in values.tolist()]


def _number(value: float, is_count: bool) -> str:
    """``%ld`` for counts (truncated, as C casts), else ``%6.4f``; an undefined value (trec_eval's 0/0, x86's
    default NaN, whose sign bit is set) prints as glibc prints it, ``-nan``."""
    if is_count:
        return str(int(value)) if np.isfinite(value) else "0"
    return f"{'-nan':>6}" if np.isnan(value) else f"{value:6.4f}"
