"""Train/test splits of an interaction log, vectorised in polars (no per-user Python loop).

Every splitter takes what :func:`rankwise.recsys.data.load_ratings` reads (or its result) and returns a
:class:`Split`. The same input gives the same split whatever its row order: rows are first put in a canonical order
(user, timestamp, item, rating, with ids compared as integers when they are integers, else as text). What each
splitter promises, and what the tests check:

- :func:`global_time_split`: every test interaction is at least as late as every training interaction.
- :func:`leave_last_out`, :func:`time_ratio_split`: per user, every test interaction is at least as late as every
  training interaction of that user.
- :func:`random_holdout`: per user, a seeded random choice; no time order.
- all: a row goes to train or to test, never both; with ``drop_seen`` (default) no (user, item) pair is in both.

The options the RecSys'21 protocol uses are applied to the test side after the split, in this order, each counted in
:attr:`Split.notes`: ``drop_seen`` (test rows whose (user, item) pair is also in train), ``drop_cold_users`` /
``drop_cold_items`` (test rows whose user / item has no training interaction), ``threshold`` (test rows rated below
it: the test set keeps the relevant interactions only).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import date, datetime, timezone
from typing import Any

import numpy as np
import polars as pl

from ..errors import InputError
from .data import ITEM, RATING, SCHEMA, TIMESTAMP, USER, load_ratings


@dataclass(frozen=True)
class Split:
    """Training and test interactions (columns user_id, item_id, rating, timestamp) and what the split dropped."""

    train: pl.DataFrame
    test: pl.DataFrame
    notes: tuple[str, ...] = ()


def ratings_frame(data: Any) -> pl.DataFrame:
    """``data`` as :func:`load_ratings` returns it (a frame that already has that schema is used as it is)."""
    if isinstance(data, pl.DataFrame) and dict(data.schema) == SCHEMA:
        return data
    return load_ratings(data)


def id_order(column: str) -> list[pl.Expr]:
    """Sort keys that order ids as integers when they are integers (``2`` before ``10``), then as text."""
    return [pl.col(column).cast(pl.Int64, strict=False), pl.col(column)]


def _canonical(data: pl.DataFrame, first: list[pl.Expr]) -> pl.DataFrame:
    keys = [*first, *id_order(USER), pl.col(TIMESTAMP), *id_order(ITEM), pl.col(RATING)]
    return data.sort(keys, nulls_last=True, maintain_order=True)


def _need_time(data: pl.DataFrame, splitter: str) -> None:
    missing = data.get_column(TIMESTAMP).null_count()
    if missing:
        raise InputError(f"{splitter} needs a timestamp for every interaction; {missing} of {data.height} have none "
                         "(the source has no timestamp column, or it is empty)")  # fmt: skip


def _share(value: float, name: str) -> float:
    if not (isinstance(value, (int, float)) and 0 < value < 1) or isinstance(value, bool):
        raise InputError(f"{name} must be a number strictly between 0 and 1, not {value!r}")
    return float(value)


def global_time_split(
    data: Any,
    quantile: float | None = 0.8,
    *,
    at: float | str | date | datetime | None = None,
    drop_seen: bool = True,
    drop_cold_users: bool = False,
    drop_cold_items: bool = False,
    threshold: float | None = None,
) -> Split:
    """Global temporal split: the earliest interactions train, the latest test.

    With ``quantile`` q: rows sorted by (timestamp, user, item), the first ⌊q·n⌋ are train, the rest test (the
    RecSys'21 protocol's 80/20 split, q = 0.8); rows sharing the boundary timestamp may fall on either side. With
    ``at`` (seconds since the epoch, a date, a datetime, or ISO text; naive datetimes are UTC): train = timestamp <
    at, test = timestamp ≥ at. Test rows are never earlier than any train row.
    """
    frame = ratings_frame(data)
    _need_time(frame, "the global timestamp split")
    if at is not None:
        cut = _seconds(at)
        is_test = pl.col(TIMESTAMP) >= cut
        ordered = _canonical(frame, [pl.col(TIMESTAMP)])
        return _finish(ordered.filter(~is_test), ordered.filter(is_test), [], drop_seen, drop_cold_users,
                       drop_cold_items, threshold)  # fmt: skip
    if quantile is None:
        raise InputError("the global timestamp split needs a quantile or a date (at=)")
    q = _share(quantile, "quantile")
    ordered = _canonical(frame, [pl.col(TIMESTAMP)])
    n_train = math.floor(q * ordered.height)
    return _finish(ordered.head(n_train), ordered.slice(n_train), [], drop_seen, drop_cold_users, drop_cold_items,
                   threshold)  # fmt: skip


def _seconds(at: float | str | date | datetime) -> float:
    if isinstance(at, bool):
        raise InputError(f"at={at!r} is not a time")
    if isinstance(at, (int, float)):
        return float(at)
    if isinstance(at, str):
        try:
            at = datetime.fromisoformat(at)
        except ValueError:
            raise InputError(f"at={at!r} is not an ISO date or datetime (1998-03-01, 1998-03-01T12:00)") from None
    if isinstance(at, date) and not isinstance(at, datetime):
        at = datetime(at.year, at.month, at.day)
    if isinstance(at, datetime):
        return (at if at.tzinfo else at.replace(tzinfo=timezone.utc)).timestamp()
    raise InputError(f"at={at!r} is not a time")


def leave_last_out(
    data: Any,
    n: int = 1,
    *,
    drop_seen: bool = True,
    drop_cold_users: bool = False,
    drop_cold_items: bool = False,
    threshold: float | None = None,
) -> Split:
    """Per user, the last ``n`` interactions (by timestamp, then item id) are test, the rest train. A user with n
    or fewer interactions stays wholly in train (counted in the notes): a user needs training history."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise InputError(f"n must be a positive integer, not {n!r}")
    frame = ratings_frame(data)
    _need_time(frame, "leave-last-out")
    count = pl.len().over(USER)
    return _per_user_tail(frame, [pl.col(TIMESTAMP)], pl.when(count > n).then(n).otherwise(0),
                          f"users with {n} or fewer interactions", drop_seen, drop_cold_users, drop_cold_items,
                          threshold)  # fmt: skip


def time_ratio_split(
    data: Any,
    test_share: float = 0.2,
    *,
    drop_seen: bool = True,
    drop_cold_users: bool = False,
    drop_cold_items: bool = False,
    threshold: float | None = None,
) -> Split:
    """Per user, the latest ⌊s·n_u⌋ of the user's n_u interactions (by timestamp, then item id) are test, the rest
    train (s = ``test_share``; ⌊·⌋ as RecBole's ratio split). A user with ⌊s·n_u⌋ = 0 stays wholly in train."""
    share = _share(test_share, "test_share")
    frame = ratings_frame(data)
    _need_time(frame, "the per-user time ratio split")
    return _per_user_tail(frame, [pl.col(TIMESTAMP)], _test_count(share),
                          f"users with fewer than {math.ceil(1 / share)} interactions", drop_seen, drop_cold_users,
                          drop_cold_items, threshold)  # fmt: skip


def random_holdout(
    data: Any,
    test_share: float = 0.2,
    *,
    seed: int = 0,
    drop_seen: bool = True,
    drop_cold_users: bool = False,
    drop_cold_items: bool = False,
    threshold: float | None = None,
) -> Split:
    """Per user, ⌊s·n_u⌋ interactions chosen at random (numpy's PCG64 generator seeded with ``seed``) are test, the
    rest train. The rows get their random keys in canonical order, so the split does not depend on the input's
    row order; the same seed gives the same split."""
    share = _share(test_share, "test_share")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise InputError(f"seed must be an integer, not {seed!r}")
    frame = _canonical(ratings_frame(data), [])
    keyed = frame.with_columns(pl.Series("_key", np.random.default_rng(seed).random(frame.height)))
    return _per_user_tail(keyed, [pl.col("_key")], _test_count(share),
                          f"users with fewer than {math.ceil(1 / share)} interactions", drop_seen, drop_cold_users,
                          drop_cold_items, threshold)  # fmt: skip


def _test_count(share: float) -> pl.Expr:
    return (pl.len().over(USER).cast(pl.Float64) * share).floor().cast(pl.Int64)


def _per_user_tail(frame: pl.DataFrame, order: list[pl.Expr], n_test: pl.Expr, kept_whole: str, drop_seen: bool,
                   drop_cold_users: bool, drop_cold_items: bool, threshold: float | None) -> Split:  # fmt: skip
    """The last ``n_test`` rows of each user in ``order`` are test (one sort, window expressions)."""
    ordered = _canonical(frame, []).sort([*id_order(USER), *order], maintain_order=True)
    position = pl.int_range(pl.len()).over(USER)
    marked = ordered.with_columns((position >= pl.len().over(USER) - n_test).alias("_test"))
    whole = marked.group_by(USER).agg(pl.col("_test").any()).filter(~pl.col("_test")).height
    notes = [f"{whole} {kept_whole} stay wholly in train"] if whole else []
    columns = list(SCHEMA)
    train = marked.filter(~pl.col("_test")).select(columns)
    test = marked.filter(pl.col("_test")).select(columns)
    return _finish(train, test, notes, drop_seen, drop_cold_users, drop_cold_items, threshold)


def _finish(train: pl.DataFrame, test: pl.DataFrame, notes: list[str], drop_seen: bool, drop_cold_users: bool,
            drop_cold_items: bool, threshold: float | None) -> Split:  # fmt: skip
    """Apply the test-side options in order, counting what each drops."""
    train, test = train.select(list(SCHEMA)), test.select(list(SCHEMA))

    def drop(keep: pl.Expr, why: str) -> None:
        nonlocal test
        kept = test.filter(keep)
        if kept.height < test.height:
            notes.append(f"{test.height - kept.height} test interactions dropped: {why}")
        test = kept

    if drop_seen:
        seen = train.select(USER, ITEM).unique()
        test = test.join(seen.with_columns(pl.lit(True).alias("_seen")), on=[USER, ITEM], how="left",
                         maintain_order="left")  # fmt: skip
        drop(pl.col("_seen").is_null(), "the user has the item in train")
        test = test.drop("_seen")
    if drop_cold_users:
        drop(pl.col(USER).is_in(train.get_column(USER).unique().implode()), "user not in train")
    if drop_cold_items:
        drop(pl.col(ITEM).is_in(train.get_column(ITEM).unique().implode()), "item not in train")
    if threshold is not None:
        if test.get_column(RATING).null_count():
            raise InputError(f"threshold {threshold}: the interactions have no ratings to compare with it")
        drop(pl.col(RATING) >= threshold, f"rated below {threshold}")
    return Split(train, test, tuple(notes))
