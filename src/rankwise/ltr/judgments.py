"""Labels from judgments: give the rows of :class:`~rankwise.ltr.data.LtrData` the grades of TREC qrels (or
any judgments :func:`rankwise.evaluate` reads), the converse of :meth:`LtrData.to_qrels`.

A row is the pair (query id, document id): its group's qid as text and :meth:`LtrData.doc_ids` (positions
``0``, ``1``, ... or, read with ``doc_ids="comment"``, the ids in the rows' comments, as LETOR files carry
them). Every row must be judged unless ``unjudged`` gives a grade for the rest; judgments that match no row
are counted, never silently dropped.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from ..errors import InputError
from ..io import load_qrels
from ..io.table import DOCID, QID, VALUE
from ..wording import counted
from .data import LtrData


@dataclass(frozen=True)
class Relabelled:
    """What :func:`relabel` made: ``data`` with the judged grades as labels, and what did not match.

    ``unjudged_rows``: rows no judgment names (given the grade ``unjudged``); ``unused_judgments``: judgments
    whose (query, document) has no row; ``unused_queries``: judged queries with no group in the data.
    """

    data: LtrData
    unjudged_rows: int
    unused_judgments: int
    unused_queries: int
    unjudged: int | None = None

    def notes(self) -> list[str]:
        """One line for each kind of mismatch (empty when every row and every judgment matched)."""
        notes = []
        if self.unjudged_rows:
            rows = counted(self.data.num_rows, "row", "rows")
            have, were = ("has", "was") if self.unjudged_rows == 1 else ("have", "were")
            notes.append(f"{self.unjudged_rows} of {rows} {have} no judgment and {were} given grade {self.unjudged}")
        if self.unused_judgments:
            judgments = counted(self.unused_judgments, "judgment matches", "judgments match")
            queries = counted(self.unused_queries, "of their queries has", "of their queries have")
            were = "was" if self.unused_judgments == 1 else "were"
            notes.append(f"{judgments} no row ({queries} no rows at all) and {were} not used")
        return notes


def relabel(
    data: LtrData,
    qrels: Any,
    *,
    unjudged: int | None = None,
    threshold: float | None = None,
    columns: Mapping[str, str] | None = None,
) -> Relabelled:
    """``data`` with every row's label replaced by its grade in ``qrels``:
    ``label(r) = grade(qid(r), doc_id(r))``.

    - ``qrels``: a path (TREC qrels, CSV/TSV/parquet), a DataFrame, an Arrow table or a ``{qid: {doc: grade}}``
      dict, read as :func:`rankwise.evaluate` reads judgments (``threshold`` and ``columns`` as there).
    - ``unjudged``: the grade of a row with no judgment; None (default) makes such a row an error naming it.

    Raises :class:`~rankwise.errors.InputError` for an unjudged row (without ``unjudged``). Document ids are
    unique within a query (:class:`LtrData` checks), so each row matches at most one judgment.
    """
    table = load_qrels(qrels, columns, threshold)
    judged = table.with_text_ids().frame.select(QID, DOCID, VALUE)
    rows = pl.DataFrame([data.query_ids(), data.doc_ids()])
    grades = rows.join(judged, on=[QID, DOCID], how="left", maintain_order="left")[VALUE]
    missing = grades.is_null().to_numpy()
    if missing.any() and unjudged is None:
        row = int(np.argmax(missing))
        raise InputError(
            f"{data.source}: row {row} (query {rows[QID][row]!r}, document {rows[DOCID][row]!r}) has no judgment in "
            f"{table.origin.name} ({int(missing.sum())} rows have none); give unjudged=GRADE (--unjudged) to grade them"
        )
    labels = grades.fill_null(0 if unjudged is None else int(unjudged)).to_numpy().astype(np.int64)
    unused = judged.join(rows, on=[QID, DOCID], how="anti")
    unused_queries = unused.select(QID).unique().join(rows.select(QID).unique(), on=QID, how="anti").height
    relabelled = dataclasses.replace(data, labels=labels)
    return Relabelled(relabelled, int(missing.sum()), unused.height, unused_queries, unjudged)
