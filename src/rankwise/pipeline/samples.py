"""Sampled rankings: a stochastic ranking policy given as several rankings (samples) per query, for the expected
exposure measures (EE-L, EE-D, EE-R; Diaz, Mitra, Ekstrand, Biega & Carterette, Evaluating Stochastic Rankings with
Expected Exposure, CIKM 2020).

expeval (``diazf/expeval`` at 69ab070) reads such a run as TREC text whose second field, ``Q0`` in an ordinary run,
names the sample (``qid sample docno rank sim run_id``: data.py ``read_topfile``), orders each sample by its rank
field and ignores the score (README), and averages each document's exposure over the query's samples: ε_d =
(1/S_q) Σ_s e_s(d), e_s(d) its exposure in sample s (0 where s does not rank it), S_q the query's samples
(exposure.py ``expected``: ``exposures[did] += e_i / numSamples``). ``samples=True`` (``--samples``) reads a TREC
run so; ``samples="COLUMN"`` names the sample column of a tabular run (a DataFrame, CSV/TSV or parquet file), whose
rows are ordered by their score or rank column as ever.

How: each (query, sample) is evaluated as a query of its own (its rows ordered under the evaluation's policies, the
query's judgments for every sample), and the query's documents over all its samples, each once, form the ranking the
measures see, whose exposure per document is the samples' mean (:class:`SampledRankings`, read by
:func:`rankwise.kernels.exposure.run_exposure`). The targets, bounds and groups are the query's, as expeval computes
them once per query. Only the expected-exposure measures read sampled rankings: any other is refused in one line.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..engine.aligned import Aligned, align
from ..errors import InputError, MeasureError
from ..io import foreign_frame, load_run
from ..io.fields import read_fields
from ..io.table import DOCID, QID, ROW
from ..io.tabular import pick_column, read_table_frame
from ..policies import Policies
from ..wording import counted
from .load import Inputs
from .plan import Plan

if TYPE_CHECKING:
    import polars as pl
else:
    from ..io.lazy import polars as pl

SAMPLE = "sample"
SAMPLED_MEASURES = ("EE-L", "EE-D", "EE-R")
"""The measures that read sampled rankings."""
_JOIN = " sample "
"""Between a query id and a sample id in the id of a (query, sample) ranking (no TREC id holds a space)."""


@dataclasses.dataclass(frozen=True)
class SampledRankings:
    """The samples of an :class:`Aligned` whose rankings are each query's documents over all its samples, each once:
    ``aligned``, every (query, sample) a query of its own; ``row``, per row of ``aligned`` the row of the same query
    and document in the whole; ``count``, per query of the whole its number of samples S_q."""

    aligned: Aligned
    row: np.ndarray
    count: np.ndarray


def refuse_unsampled(plan: Plan) -> None:
    """Refuse a measure other than the expected-exposure ones with sampled rankings, in one line."""
    for key, measure in plan.pairs:
        if measure.name not in SAMPLED_MEASURES:
            raise MeasureError(f"{key}: only the expected-exposure measures ({', '.join(SAMPLED_MEASURES)}) read "
                               "sampled rankings (samples=); evaluate one sample as a run for the others")  # fmt: skip


def sampled_frame(run: Any, samples: bool | str, run_columns: Mapping[str, str] | None = None) -> pl.DataFrame:
    """The run's rows with their sample: query_id, doc_id, sample, and the value column (a tabular run's score or
    rank column as found by name or named in ``run_columns``; a TREC run's rank field, as expeval orders each sample:
    score = −rank)."""
    if samples is True:
        if not isinstance(run, (str, Path)):
            raise InputError("samples=True reads the sample of each line from a TREC run file's second field: give "
                             "a file, or name the sample column of a table (samples='COLUMN')")  # fmt: skip
        frame = _trec_samples(Path(run))
    elif not isinstance(samples, str) or not samples:
        raise InputError(f"samples must be True (a TREC run's second field) or a column name, not {samples!r}")
    else:
        frame = _table(run, run_columns)
        if samples not in frame.columns:
            raise InputError(f"run: no sample column {samples!r} (columns: {', '.join(frame.columns)})")
        query, doc = (pick_column(frame.columns, role, "run", run_columns, "run") for role in (QID, DOCID))
        frame = frame.rename({query: QID, doc: DOCID, samples: SAMPLE})
    frame = frame.with_columns(pl.col(column).cast(pl.String) for column in (QID, DOCID, SAMPLE))
    joined = frame.filter(pl.col(QID).str.contains(_JOIN, literal=True)).head(1)
    if joined.height:
        raise InputError(f"run: query {joined.item(0, QID)!r} holds {_JOIN!r}, which rankwise puts between a query "
                         "and a sample to name the sample's ranking: rename the query")  # fmt: skip
    return frame


def _table(run: Any, run_columns: Mapping[str, str] | None) -> pl.DataFrame:
    """A tabular run as a DataFrame with every column: a file read as :func:`rankwise.io.load_run` reads it, a
    polars DataFrame as it is, a pandas DataFrame or Arrow table converted."""
    if isinstance(run, (str, Path)):
        return read_table_frame(Path(run), "run", run_columns)
    if isinstance(run, pl.DataFrame):
        return run
    if type(run).__module__.split(".")[0] in ("pandas", "pyarrow"):
        return foreign_frame(run, "run")
    raise InputError(f"samples= reads a run table or file with a sample column, not a {type(run).__name__}")


def _trec_samples(path: Path) -> pl.DataFrame:
    """``qid sample docno rank score [tag ...]`` lines (data.py read_topfile: ``fields[:5]``), in the TREC grammar of
    :func:`rankwise.io.fields.read_fields`; the rank checked, each named by file and line."""
    parts, origin = read_fields(path, (QID, SAMPLE, DOCID, "rank", "score"), "query sample doc rank score [tag]",
                                "run lines", at_least=True)  # fmt: skip
    rank = parts.get_column("rank").cast(pl.Int64, strict=False)
    wrong = parts.filter(rank.is_null() | (rank < 1))
    if wrong.height:
        raise InputError(f"{origin.locate(wrong.item(0, ROW))}: rank {wrong.item(0, 'rank')!r} is not a whole number "
                         ">= 1 (a sampled run's samples are ordered by rank, as expeval orders them)")  # fmt: skip
    parts = parts.with_columns(rank=rank)
    for keys, what in (([QID, SAMPLE, DOCID], "doc"), ([QID, SAMPLE, "rank"], "rank")):
        repeated = parts.filter(pl.struct(keys).is_duplicated())
        if repeated.height:
            row = repeated.row(1, named=True)
            raise InputError(f"{origin.locate(row[ROW])}: {what} {row[DOCID if what == 'doc' else 'rank']} repeated "
                             f"in sample {row[SAMPLE]!r} of query {row[QID]!r}")  # fmt: skip
    return parts.select(QID, DOCID, SAMPLE, (-pl.col("rank").cast(pl.Float64)).alias("score"))


def sampled_inputs(plan: Plan, qrels: Any, frame: pl.DataFrame, run_columns: Any, load: Any) -> Inputs:
    """The inputs of a sampled run ``frame`` (:func:`sampled_frame`): ``load(qrels, run)`` (the evaluation's own
    loading, with its other inputs) of each query's documents over its samples, each once, and the samples as
    :attr:`Inputs.samples`: every (query, sample) a query of its own, judged by the query's judgments."""
    named = {k: v for k, v in (run_columns or {}).items() if k not in (QID, DOCID)}
    expanded_ids = pl.concat_str([pl.col(QID), pl.lit(_JOIN), pl.col(SAMPLE)])
    expanded = load_run(frame.with_columns(expanded_ids.alias(QID)).drop(SAMPLE), named or None)
    documents = frame.select(QID, DOCID).unique(maintain_order=True).with_columns(pl.lit(0.0).alias("score"))
    inputs = load(qrels, documents)
    pairs = frame.select(QID, expanded_ids.alias("expanded")).unique(maintain_order=True)
    judged = inputs.qrels.frame.join(pairs, on=QID, how="inner").with_columns(pl.col("expanded").alias(QID))
    each = dataclasses.replace(inputs.qrels, frame=judged.drop("expanded").with_columns(
        pl.int_range(pl.len(), dtype=pl.UInt32).alias(ROW)))  # fmt: skip
    whole = dataclasses.replace(inputs.run, origin=expanded.origin, run_name=expanded.run_name)
    return dataclasses.replace(inputs, run=whole, samples=Inputs(each, expanded))


def sampled_note(frame: pl.DataFrame) -> str:
    """How many samples the run held: ``run: sampled rankings: N samples of Q queries (a to b per query); ...``."""
    per_query = frame.group_by(QID).agg(pl.col(SAMPLE).n_unique().alias("n")).get_column("n").to_numpy()
    return (f"run: sampled rankings: {counted(int(per_query.sum()), 'sample', 'samples')} of "
            f"{counted(len(per_query), 'query', 'queries')} ({per_query.min()} to {per_query.max()} per query); each "
            "document's exposure is its mean over its query's samples")  # fmt: skip


def attach_samples(aligned: Aligned, samples: Inputs, policies: Policies) -> None:
    """Give ``aligned`` (the whole rankings) its :class:`SampledRankings`, the samples aligned under ``policies``
    (every row of a sample is a document of its query's whole ranking: both come from the same rows)."""
    each = align(samples.qrels, samples.run, policies, allow_empty=True)
    of_query = pl.Series(QID, each.query_ids, dtype=pl.String).str.split(_JOIN).list.first()  # no query holds _JOIN
    rows = pl.DataFrame({QID: of_query.gather(each.qidx), DOCID: _doc_text(each)}).with_row_index("each")
    whole = pl.DataFrame({QID: pl.Series(aligned.query_ids, dtype=pl.String).gather(aligned.qidx),
                          DOCID: _doc_text(aligned)}).with_row_index("whole")  # fmt: skip
    matched = rows.join(whole, on=[QID, DOCID], how="left").sort("each").get_column("whole")
    assert matched.null_count() == 0, "a sampled row without its query's document"
    per_query = of_query.value_counts()
    count = pl.DataFrame({QID: aligned.query_ids}, schema={QID: pl.String}).join(
        per_query, on=QID, how="left").get_column("count").fill_null(0).to_numpy().astype(np.float64)  # fmt: skip
    aligned.samples = SampledRankings(each, matched.to_numpy(), count)


def _doc_text(a: Aligned) -> pl.Series:
    assert a.doc is not None, "aligned without doc codes"
    return a.doc_id_series().cast(pl.String).gather(a.doc)


__all__ = ["SAMPLE", "SAMPLED_MEASURES", "SampledRankings", "attach_samples", "refuse_unsampled", "sampled_frame",
           "sampled_inputs", "sampled_note"]
