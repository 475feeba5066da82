"""What trec_eval's judgment formats beside qrels share — judgment groups (``-R qrels_jg``,
:mod:`.judgment_groups`) and preferences (``-R prefs``, ``-R qrels_prefs``, :mod:`.prefs`): :class:`Judgments`, a
frame of the file's lines with its origin and the pool of judged documents the other measures see, read by
:func:`read_judgments`; and trec_eval's ``-J`` (:func:`judged_only`), which keeps the judged documents of a run.
"""

from __future__ import annotations

import dataclasses
from abc import ABC, abstractmethod
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

if TYPE_CHECKING:
    import polars as pl
else:
    from ..io.lazy import polars as pl

from ..io.fields import numbers, read_fields
from ..io.table import DOCID, QID, VALUE, Origin, Table, make_table

GROUP = "jg"
"""The column of the judgment group (trec_eval's second column, in every format but qrels)."""


@dataclass(frozen=True)
class Judgments(ABC):
    """Judgments read from a file (:func:`read_judgments`): ``frame`` has the columns ``query_id``, ``jg``,
    ``doc_id`` (text), those of its format and ``row`` (input position); ``origin`` names the file and its lines."""

    frame: pl.DataFrame
    origin: Origin
    pool_name: ClassVar[str] = "judged documents"
    """What :meth:`pool` holds, in its origin's name (``FILE (pool_name)``)."""

    def pool(self) -> Table:
        """Every judged (query, document) as qrels (:meth:`pool_frame`): the queries and the pool that the query
        policies (``-c``) and ``-J`` of the other measures see."""
        return make_table(self.pool_frame(), "qrels", Origin(f"{self.origin.name} ({self.pool_name})"))

    @abstractmethod
    def pool_frame(self) -> pl.DataFrame:
        """The rows of :meth:`pool`: ``query_id``, ``doc_id`` and ``value``, a grade, once per (query, document)."""


def read_judgments(
    source: str | Path, columns: tuple[str, ...], layout: str, what: str, *, grade: str, grade_name: str,
    integer: bool,
) -> tuple[pl.DataFrame, Origin]:  # fmt: skip
    """The lines of the file ``source`` as text fields named ``columns`` (:func:`rankwise.io.fields.read_fields`,
    whose errors name the ``layout`` and ``what`` the lines are), the column ``grade`` read as numbers, Int64 when
    ``integer`` else finite Float64 (:func:`rankwise.io.fields.numbers`, whose errors call it ``grade_name``) and
    moved last; and the file's origin. Errors name the file and line."""
    frame, origin = read_fields(source, columns, layout, what)
    return numbers(frame, grade, origin, grade_name, integer=integer), origin


def judged_only(qrels: Table, run: Table, depth: int | None) -> Table:
    """trec_eval ``-J``: the run with its unjudged documents removed (not in the qrels, or graded below 0), after
    the depth cut ``-M`` (trec_eval cuts first: ``-M 100 -J`` keeps the judged documents of the top 100).

    Documents are ranked as trec_eval ranks them (score descending, then doc id descending, byte order), so the
    documents left keep their order: the condensed list of Sakai (SIGIR 2007)."""
    frame = run.frame.with_row_index("_row")
    if depth is not None:
        text = pl.col(DOCID).cast(pl.String)
        ranked = frame.sort([QID, VALUE, text.alias("_doc")], descending=[False, True, True])
        frame = ranked.filter(pl.int_range(pl.len()).over(QID) < depth).sort("_row")
    judged = qrels.frame.filter(pl.col(VALUE) >= 0).select(
        pl.col(QID).cast(pl.String).alias("_q"), pl.col(DOCID).cast(pl.String).alias("_d")
    )
    keys = frame.with_columns(pl.col(QID).cast(pl.String).alias("_q"), pl.col(DOCID).cast(pl.String).alias("_d"))
    kept = keys.join(judged, on=["_q", "_d"], how="semi").sort("_row").drop(["_row", "_q", "_d"])
    return dataclasses.replace(run, frame=kept)
