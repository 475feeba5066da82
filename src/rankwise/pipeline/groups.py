"""User (query) groups: which group each evaluated query belongs to, so that per-query values can be split by group
after they are computed (a post-step: the in-memory, streamed and partitioned paths compute per-query values as
always; :meth:`rankwise.EvaluationResult.with_groups` labels a finished result, a Spark one too).

A group source is read from ``groups=`` of :func:`rankwise.evaluate`:

- ``{query_id: label}``; a table (polars/pandas DataFrame, pyarrow table) with an id column and one label column, or
  ``(table_or_path, column)``; ``"FILE:COLUMN"`` (CSV, TSV, RecBole atomic ``.user``/``.item`` files with
  ``name:type`` headers, parquet). The id column is found by name (``query_id``, ``qid``, ``user_id``, ``user``, ...;
  else the first column); the label column is ``COLUMN`` (``age`` matches ``age:token``).
- ``"activity"``: user activity, the number of training interactions of each user (``train=``), cut in three groups
  ``cold`` (n < c1), ``regular`` (c1 <= n < c2), ``heavy`` (n >= c2), with c1, c2 the 1/3 and 2/3 quantiles of the
  evaluated users' counts; ``"activity:quantiles=0.2,0.8"`` other quantiles, ``"activity:thresholds=5,50"`` the cut
  points themselves. A user absent from the training interactions has n = 0.

Nothing is dropped silently: ids of the source that are no evaluated query, evaluated queries in no group and groups
without an evaluated query are each one note line, counted.
"""

from __future__ import annotations

import dataclasses
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

from ..engine.training import Training, popularity_labels
from ..errors import InputError
from ..io.interactions import read_interactions
from ..io.table import DOCID, QID
from ..io.tabular import find_column
from ..measures.beyond import HEAD_SHARE
from ..wording import counted

ACTIVITY = "activity"
ACTIVITY_LABELS = ("cold", "regular", "heavy")
DEFAULT_QUANTILES = (1 / 3, 2 / 3)
ID_COLUMNS = ("query_id", "qid", "query", "topic", "topic_id", "user_id", "user", "uid", "userid")
ITEM_ID_COLUMNS = ("item_id", "item", "iid", "itemid", "doc_id", "docid", "docno", "page_id", "page")
"""The names the id column of an item group table is found by (:func:`read_item_groups`)."""
POPULARITY = "popularity"
DELIMITERS = {".csv": ","}
"""Separators of group files by suffix; any other suffix but parquet is read as tab-separated (TSV, RecBole's
``.user``/``.item``)."""


@dataclass(frozen=True)
class GroupSource:
    """What ``groups=`` names, read: a label per id (``mapping``), or user activity from training interactions
    (``counts``: interactions per user, cut at ``cuts`` given or at ``quantiles`` of the labelled queries' counts)."""

    name: str
    """The attribute (``gender``, ``activity``): the group table's heading."""
    origin: str
    """Where the labels come from, for notes (``ml-100k.user:gender``, ``activity``)."""
    mapping: Mapping[str, str | None] = dataclasses.field(default_factory=dict)
    counts: Mapping[str, int] | None = None
    quantiles: tuple[float, float] | None = None
    cuts: tuple[float, float] | None = None

    def assign(self, query_ids: Sequence[str]) -> QueryGroups:
        r"""The group of each of ``query_ids`` (see :class:`QueryGroups`), with the notes of what does not match: its
        label, or for activity with :math:`n_q` training interactions ``cold`` (:math:`n_q < c_1`), ``regular``
        (:math:`c_1 \le n_q < c_2`), ``heavy`` (:math:`n_q \ge c_2`), the cut points given or the ``quantiles`` of
        :math:`\{n_q\}` over ``query_ids`` (numpy's linear interpolation, Hyndman & Fan 1996 type 7)."""
        if self.counts is not None:
            return self._activity(query_ids)
        labels = _ordered({label for label in self.mapping.values() if label is not None})
        index = {label: g for g, label in enumerate(labels)}
        codes = np.array([index.get(self.mapping.get(q) or "", -1) for q in query_ids], dtype=np.int64)
        notes = []
        evaluated = set(query_ids)
        unknown = sorted((q for q in self.mapping if q not in evaluated), key=str.encode)
        if unknown:
            notes.append(f"{self.origin}: {counted(len(unknown), 'id is', 'ids are')} no evaluated query (not "
                         f"labelled): {_sample(unknown)}")  # fmt: skip
        return _finish(self, labels, codes, query_ids, notes)

    def _activity(self, query_ids: Sequence[str]) -> QueryGroups:
        counts = self.counts or {}
        n = np.array([counts.get(q, 0) for q in query_ids], dtype=np.float64)
        if self.cuts is not None:
            low, high = self.cuts
        else:
            assert self.quantiles is not None
            low, high = (float(c) for c in np.quantile(n, self.quantiles)) if n.size else (math.nan, math.nan)
        codes = np.where(n < low, 0, np.where(n < high, 1, 2)).astype(np.int64)
        quantiles = self.quantiles if self.cuts is None else None
        how = f" (the {quantiles[0]:.3g} and {quantiles[1]:.3g} quantiles)" if quantiles else ""
        notes = [f"{self.origin}: training interactions per user: cold < {low:g} <= regular < {high:g} <= heavy{how}"]
        absent = sum(q not in counts for q in query_ids)
        if absent:
            notes.append(f"{self.origin}: {counted(absent, 'evaluated user has', 'evaluated users have')} no training "
                         "interaction (n = 0: cold)")  # fmt: skip
        source = dataclasses.replace(self, cuts=(low, high))
        return _finish(source, ACTIVITY_LABELS, codes, query_ids, notes)


@dataclass(frozen=True)
class QueryGroups:
    """The groups of one result's queries: ``codes[j]`` is the index in ``labels`` of query ``query_ids[j]``'s group,
    -1 for a query in no group; ``notes`` counts what did not match (unknown ids, queries in no group, empty
    groups) and how activity was cut. ``source`` labels other query ids the same way (:meth:`GroupSource.assign`;
    activity with the cut points found here)."""

    source: GroupSource
    labels: tuple[str, ...]
    query_ids: tuple[str, ...]
    codes: np.ndarray
    notes: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        """The attribute the queries are grouped by."""
        return self.source.name

    @property
    def sizes(self) -> dict[str, int]:
        """``{label: number of evaluated queries in the group}``, every group (empty ones too)."""
        counts = np.bincount(self.codes[self.codes >= 0], minlength=len(self.labels))
        return {label: int(c) for label, c in zip(self.labels, counts)}

    def mask(self, label: str) -> np.ndarray:
        """The queries of group ``label``, as a mask over ``query_ids``."""
        return self.codes == self.labels.index(label)

    def label_of(self) -> dict[str, str | None]:
        """``{query_id: label}`` (None for a query in no group)."""
        return {q: (self.labels[c] if c >= 0 else None) for q, c in zip(self.query_ids, self.codes.tolist())}

    def split(self, values: np.ndarray) -> list[np.ndarray]:
        r"""The defined (not NaN) entries of ``values`` (one per query, over ``query_ids``) of each group, in the order
        of ``labels``: :math:`\{x_q : q \in Q_g, x_q \text{ defined}\}` — what a group's mean
        :math:`\bar x_g = \frac{1}{|Q_g|} \sum_{q \in Q_g} x_q` averages (as fairlearn's ``MetricFrame.by_group``
        splits rows by a sensitive feature, Weerts et al. 2023)."""
        return [values[(self.codes == g) & ~np.isnan(values)] for g in range(len(self.labels))]


def _finish(source: GroupSource, labels: Sequence[str], codes: np.ndarray, query_ids: Sequence[str],
            notes: list[str]) -> QueryGroups:  # fmt: skip
    """The groups with the notes every source shares: queries in no group, groups with no query."""
    outside = [q for q, c in zip(query_ids, codes.tolist()) if c < 0]
    if outside:
        notes.append(
            f"{source.origin}: {counted(len(outside), 'evaluated query is', 'evaluated queries are')} in no "
            f"group (left out of the group table, kept in the overall means): {_sample(outside)}"
        )
    groups = QueryGroups(source, tuple(labels), tuple(query_ids), codes)
    empty = [label for label, size in groups.sizes.items() if size == 0]
    if empty:
        notes.append(
            f"{source.origin}: {counted(len(empty), 'group has', 'groups have')} no evaluated query: {_sample(empty)}"
        )
    return dataclasses.replace(groups, notes=tuple(notes))


def read_groups(groups: Any, train: pl.DataFrame | None = None, id_columns: Sequence[str] = ID_COLUMNS
                ) -> GroupSource:  # fmt: skip
    """The group source ``groups`` names (see the module docstring); ``train``: training interactions as
    :func:`rankwise.io.interactions.read_interactions` gives them, which ``"activity"`` counts; ``id_columns``: the
    names the id column of a table is found by (else its first column). Bad input is an :class:`InputError` of one
    line."""
    if isinstance(groups, GroupSource):
        return groups
    if isinstance(groups, str) and groups.split(":", 1)[0].strip().lower() == ACTIVITY and not Path(groups).exists():
        return _activity_source(groups, train)
    if isinstance(groups, (str, Path)):
        path, column = _path_and_column(str(groups))
        return _from_frame(_read_file(path), column, f"{path.name}:{column}" if column else path.name, id_columns)
    if isinstance(groups, tuple) and len(groups) == 2 and isinstance(groups[1], str):
        table, column = groups
        if isinstance(table, (str, Path)):
            return _from_frame(_read_file(Path(table)), column, f"{Path(table).name}:{column}", id_columns)
        return _from_frame(_as_frame(table), column, f"groups table:{column}", id_columns)
    if isinstance(groups, Mapping):
        mapping = {str(q): (None if label is None or str(label) == "" else str(label)) for q, label in groups.items()}
        return GroupSource("group", "groups", mapping)
    return _from_frame(_as_frame(groups), None, "groups table", id_columns)


def read_item_groups(item_groups: Any, train: pl.DataFrame | None = None) -> GroupSource:
    """The item groups ``item_groups`` names, read as ``groups=`` is (:func:`read_groups`, the id column found by
    :data:`ITEM_ID_COLUMNS`): ``{item_id: label}``, a table with an item id and a label column, ``(table, column)``,
    ``"FILE:COLUMN"`` (RecBole's ``ml-100k.item:class``); or ``"popularity"``: the short head (``head``) and long
    tail (``tail``) of the training items ``train``, the head the most popular items up to 0.8 of the training
    interactions (:func:`rankwise.engine.training.popularity_labels`, the split of LongTail/APLT; Elliot's
    popularity.py:37-53). A multi-valued attribute (RecBole's ``genre:token_seq``) is refused: one label per item."""
    named = isinstance(item_groups, str) and item_groups.strip().lower() == POPULARITY
    if not named or Path(item_groups).exists():
        source = read_groups(item_groups, None, ITEM_ID_COLUMNS)
        if source.origin.startswith("groups"):  # a mapping or a table: named as the keyword in notes
            source = dataclasses.replace(source, origin="item_" + source.origin)
        return source
    if train is None:
        raise InputError("item_groups='popularity' splits the training items by popularity: give them (train= / "
                         "--train)")  # fmt: skip
    index = Training(train).index("item_groups='popularity'")
    return GroupSource(POPULARITY, POPULARITY, popularity_labels(index, float(HEAD_SHARE.default)))  # type: ignore[arg-type]


def item_group_notes(source: GroupSource, ranked: pl.Series, judged: pl.Series) -> list[str]:
    """What does not match between the item groups and the items (nothing is dropped silently): ids of the source
    that are no item of the run or the qrels (not for ``popularity``, whose ids are the training items), items of
    the run in no group (left out of every item-group measure), groups without an item in the run. ``ranked``,
    ``judged``: the item ids of the run and of the qrels."""
    ranked_ids = set(ranked.cast(pl.String).to_list())
    notes = []
    if source.origin != POPULARITY:
        known = ranked_ids | set(judged.cast(pl.String).to_list())
        unknown = sorted((i for i in source.mapping if i not in known), key=str.encode)
        if unknown:
            notes.append(f"{source.origin}: {counted(len(unknown), 'id is', 'ids are')} no item of the run or the "
                         f"qrels (not used): {_sample(unknown)}")  # fmt: skip
    outside = sorted((i for i in ranked_ids if source.mapping.get(i) is None), key=str.encode)
    if outside:
        notes.append(f"{source.origin}: {counted(len(outside), 'item of the run is', 'items of the run are')} in no "
                     "group (left out of AWRF, RSP, REO and ItemMAD; pooled into one group by EE over=groups, as "
                     f"expeval -G): {_sample(outside)}")  # fmt: skip
    present = {source.mapping.get(i) for i in ranked_ids}
    empty = [label for label in _ordered({v for v in source.mapping.values() if v is not None}) if label not in present]
    if empty:
        notes.append(f"{source.origin}: {counted(len(empty), 'group has', 'groups have')} no item in the run: "
                     f"{_sample(empty)}")  # fmt: skip
    return notes


def _activity_source(spec: str, train: pl.DataFrame | None) -> GroupSource:
    """``activity``, ``activity:quantiles=A,B`` or ``activity:thresholds=A,B`` with the training interactions."""
    if train is None:
        raise InputError(f"groups={spec!r} counts each user's training interactions: give them (train= / --train)")
    _, _, option = spec.partition(":")
    quantiles: tuple[float, float] | None = DEFAULT_QUANTILES
    cuts = None
    if option.strip():
        key, _, text = option.partition("=")
        if key.strip() not in ("quantiles", "thresholds"):
            raise InputError(f"groups={spec!r}: write activity, activity:quantiles=A,B or activity:thresholds=A,B")
        points = _two_numbers(text, spec)
        if key.strip() == "thresholds":
            quantiles, cuts = None, points
        elif all(0.0 < p < 1.0 for p in points):
            quantiles = points
        else:
            raise InputError(f"groups={spec!r}: quantiles lie strictly between 0 and 1")
    per_user = train.group_by(QID).len()
    counts = dict(zip(per_user.get_column(QID).cast(pl.String).to_list(), per_user.get_column("len").to_list()))
    return GroupSource(ACTIVITY, ACTIVITY, counts=counts, quantiles=quantiles, cuts=cuts)


def _two_numbers(text: str, spec: str) -> tuple[float, float]:
    """Two increasing cut points ``A,B``."""
    try:
        points = [float(part) for part in text.split(",")]
    except ValueError:
        points = []
    if len(points) != 2 or not points[0] < points[1]:
        raise InputError(f"groups={spec!r}: give two increasing numbers A,B (cold < A <= regular < B <= heavy)")
    return points[0], points[1]


def _path_and_column(text: str) -> tuple[Path, str | None]:
    """``FILE:COLUMN`` split at the last colon (a path that exists as given has no column)."""
    if Path(text).is_file() or ":" not in text:
        return Path(text), None
    path, column = text.rsplit(":", 1)
    if not column:
        raise InputError(f"groups {text!r}: name the column after the colon (FILE:COLUMN)")
    return Path(path), column


def _read_file(path: Path) -> pl.DataFrame:
    """Every column of a group file as text (parquet as typed)."""
    if not path.is_file():
        raise InputError(f"{path}: no such file (groups are FILE:COLUMN)")
    suffix = path.suffix.lower()
    try:
        if suffix in (".parquet", ".pq"):
            return pl.read_parquet(path)
        separator = DELIMITERS.get(suffix, "\t")
        return pl.read_csv(path, separator=separator, infer_schema=False, quote_char=None if separator == "\t" else '"')
    except (OSError, pl.exceptions.PolarsError) as exc:
        raise InputError(f"{path}: cannot read ({str(exc).splitlines()[0] if str(exc) else exc})") from None


def _as_frame(table: Any) -> pl.DataFrame:
    if isinstance(table, pl.DataFrame):
        return table
    module = type(table).__module__.split(".")[0]
    if module == "pandas":
        return pl.from_pandas(table)
    if module == "pyarrow":
        frame = pl.from_arrow(table)
        if isinstance(frame, pl.DataFrame):
            return frame
    raise InputError(f"groups: cannot read {type(table).__name__}; give {{query_id: label}}, a table with an id and a "
                     "label column, (table, column) or 'FILE:COLUMN'")  # fmt: skip


def _from_frame(frame: pl.DataFrame, column: str | None, origin: str, id_columns: Sequence[str] = ID_COLUMNS
                ) -> GroupSource:  # fmt: skip
    """Labels from a table: the id column found by name among ``id_columns`` (else the first), the label column named
    ``column`` (exactly, or by the part before ``:type``), or the only other column; a RecBole sequence column
    (``genre:token_seq``: several labels per id) is refused."""
    if frame.width < 2:
        raise InputError(f"{origin}: a group table needs an id column and a label column; columns are {frame.columns}")
    id_column = find_column(frame.columns, tuple(id_columns)) or frame.columns[0]
    if column is None:
        others = [c for c in frame.columns if c != id_column]
        if len(others) != 1:
            raise InputError(f"{origin}: name the label column (FILE:COLUMN or (table, column)); columns are "
                             f"{frame.columns}")  # fmt: skip
        label_column = others[0]
    else:
        label_column = column if column in frame.columns else find_column(frame.columns, (column.lower(),)) or ""
        if not label_column:
            raise InputError(f"{origin}: no column {column!r}; columns are {frame.columns}")
    if label_column == id_column:
        raise InputError(f"{origin}: {label_column!r} is the id column; name a label column")
    if label_column.endswith("_seq"):
        raise InputError(f"{origin}: {label_column!r} holds several values per id (a RecBole sequence); groups take "
                         "one label per id: name a single-valued column")  # fmt: skip
    pairs = frame.select(pl.col(id_column).cast(pl.String).alias("id"), pl.col(label_column).cast(pl.String)
                         .str.strip_chars().alias("label")).filter(pl.col("id").is_not_null())  # fmt: skip
    pairs = pairs.with_columns(pl.col("id").str.strip_chars(), pl.when(pl.col("label") == "").then(None)
                               .otherwise(pl.col("label")).alias("label"))  # fmt: skip
    clashes = pairs.unique().filter(pl.col("id").is_duplicated())
    if clashes.height:
        raise InputError(f"{origin}: id {clashes.get_column('id')[0]!r} has more than one label")
    mapping = dict(zip(pairs.get_column("id").to_list(), pairs.get_column("label").to_list()))
    return GroupSource(label_column.split(":")[0], origin, mapping)


def item_codes(source: GroupSource, code: str = "code") -> tuple[tuple[str, ...], pl.DataFrame]:
    """The item groups' labels (in the order of ``groups=``: numeric when every one is a number, else as text) and a
    frame of every item id of ``source`` (``doc_id``, text) with its label's index (column ``code``; −1 for an item
    mapped to no group), to join to the items of a table."""
    labels = _ordered({label for label in source.mapping.values() if label is not None})
    index = {label: c for c, label in enumerate(labels)}
    codes = [index[label] if label is not None else -1 for label in source.mapping.values()]
    return labels, pl.DataFrame({DOCID: list(source.mapping), code: codes}, schema={DOCID: pl.String, code: pl.Int64})


def _ordered(labels: set[str]) -> tuple[str, ...]:
    """Labels in numeric order when every one is a number (ages, ``1`` < ``10``), else as text."""
    try:
        return tuple(sorted(labels, key=float))
    except ValueError:
        return tuple(sorted(labels))


def _sample(ids: Sequence[str], shown: int = 5) -> str:
    text = ", ".join(ids[:shown])
    return text + (f", … ({len(ids) - shown} more)" if len(ids) > shown else "")


def training_pairs(train: Any) -> pl.DataFrame | None:
    """Training interactions as :func:`rankwise.io.interactions.read_interactions` gives them (read unless they are
    already), or None."""
    if train is None or (isinstance(train, pl.DataFrame) and train.columns[:1] == [QID]):
        return train
    return read_interactions(train)


__all__ = ["ACTIVITY", "ACTIVITY_LABELS", "GroupSource", "QueryGroups", "item_codes", "item_group_notes", "read_groups",
           "read_item_groups", "training_pairs"]
