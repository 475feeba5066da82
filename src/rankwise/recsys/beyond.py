"""Beyond-accuracy measures of recommendation lists: coverage, novelty, popularity, long tail, concentration
(Gini, entropy), intra-list diversity, unexpectedness and serendipity.

Each measure is one function returning a :class:`BeyondResult`: the aggregate value, the value of every user where
the measure is defined per user (``per_user``: user_id, value), and notes on what was left out. Variants are named by
keyword options; ``dialect=`` fills in the options of the library that defines the measure that way (RePlay, RecBole,
MS Recommenders, Elliot, rs_metrics, LensKit, RecTools — :data:`DIALECTS`), and explicit options override it.

Inputs, read once per call (or pass :func:`lists` / :func:`interactions` results to read them once for many calls):

- ``recs``: recommendation lists, anything :func:`rankwise.load_run` reads with user, item and score or rank columns
  (or a :class:`~rankwise.recsys.baselines.Recommendations`). Each list is ordered by score descending (rank
  ascending), equal scores in input order, and cut at ``k`` (default: the whole list).
- ``train``: training interactions (user, item), as :func:`rankwise.io.interactions.load_interactions` reads them;
  a repeated pair counts once, so an item's interaction count is its number of training users.
- ``catalog``: the catalogue, as a number of items or the items themselves (default: the training items).
- ``features``: item features, a table with an item id column and numeric feature columns.
- ``truth``: test interactions (user, item): the relevant items, for serendipity.
- ``baseline``: another model's lists, for unexpectedness.

A measure that needs an input it was not given raises an :class:`~rankwise.errors.InputError` naming it. Every
measure runs on flat numpy arrays (one pass, no per-user Python loop); similarity-based ones (intra-list
diversity, serendipity with item co-occurrence) use ``scipy.sparse`` (``pip install '.[recsys]'``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from ..engine.similarity import item_vectors, paired_dots, pairwise_distance_sums, row_sums
from ..engine.training import TrainingIndex, catalogue_size
from ..errors import InputError, MeasureError
from ..io import load_run
from ..io.interactions import load_interactions, read_interactions
from ..io.table import DOCID, QID, VALUE
from ..kernels.beyond import coverage_from, entropy_from_counts, gini_from_counts, long_tail_mask, self_information_of
from .data import ITEM, USER


@dataclass(frozen=True)
class BeyondResult:
    """One measure: ``value`` (the aggregate), ``per_user`` (user_id, value; None for global measures such as
    coverage and Gini), the options in force and notes on users left out."""

    measure: str
    value: float
    per_user: pl.DataFrame | None
    options: tuple[tuple[str, Any], ...] = ()
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Lists:
    """Recommendation lists cut at k: ``frame`` has user_id, item_id (text) and rank (1-based, consecutive), sorted
    by user (first appearance) then rank; ``k`` is the cut (None: whole lists)."""

    frame: pl.DataFrame
    k: int | None

    @property
    def users(self) -> pl.Series:
        return self.frame.get_column(USER).unique(maintain_order=True)


def lists(recs: Any, k: int | None = None, columns: Mapping[str, str] | None = None) -> Lists:
    """Read recommendation lists and cut them at ``k`` (see the module docstring)."""
    if isinstance(recs, Lists):
        if k is None or recs.k == k:
            return recs
        if recs.k is not None and k > recs.k:
            raise InputError(f"lists cut at {recs.k} cannot be evaluated at k={k}")
        return Lists(recs.frame.filter(pl.col("rank") <= k), k)
    if k is not None and (isinstance(k, bool) or not isinstance(k, int) or k < 1):
        raise InputError(f"k must be a positive integer, not {k!r}")
    frame = getattr(recs, "frame", None)
    if isinstance(frame, pl.DataFrame) and {USER, ITEM, "rank"} <= set(frame.columns):  # Recommendations
        recs = frame.select(USER, ITEM, "rank")
    table = load_run(recs, columns).with_text_ids().frame
    first_row = pl.col("row").min().over(QID)  # users in order of first appearance
    ranked = table.sort([first_row, -pl.col(VALUE), "row"])
    ranked = ranked.select(
        pl.col(QID).alias(USER), pl.col(DOCID).alias(ITEM), (pl.int_range(pl.len()).over(QID) + 1).alias("rank")
    )
    if k is not None:
        ranked = ranked.filter(pl.col("rank") <= k)
    return Lists(ranked, k)


def interactions(source: Any, what: str = "training interactions", *, repeats: bool = False) -> pl.DataFrame:
    """Distinct (user_id, item_id) pairs as text from anything :func:`load_interactions` reads; with ``repeats``
    every row, a repeated pair as often as it is given (RecBole's item counter counts each row)."""
    if isinstance(source, pl.DataFrame) and source.columns == [USER, ITEM] and source.schema[USER] == pl.String \
            and source.schema[ITEM] == pl.String and source.null_count().sum_horizontal().item() == 0:  # fmt: skip
        return source if repeats else source.unique(maintain_order=True)
    try:
        pairs = read_interactions(source) if repeats else load_interactions(source)
    except InputError as exc:
        raise InputError(f"{what}: {exc}") from None
    return pairs.select(pl.col(QID).cast(pl.String).alias(USER), pl.col(DOCID).cast(pl.String).alias(ITEM))


# ----------------------------------------------------------------------------------------------------------------
# Options and dialects

#: For each measure, the options each library's definition implies (see each function's docstring for the source).
DIALECTS: dict[str, dict[str, dict[str, Any]]] = {
    "coverage": {
        "replay": {"over": "train", "count": "known"},  # replay.metrics.Coverage
        "ms_recommenders": {"over": "train", "count": "recommended"},  # python_evaluation.catalog_coverage
        "rs_metrics": {"over": "catalog", "count": "known"},  # rs_metrics.coverage(items, recs)
        "recbole": {"over": "catalog", "count": "recommended"},  # ItemCoverage (num_items counts [PAD])
        "elliot": {"over": "count", "count": "recommended"},  # ItemCoverage
    },
    "unseen_share": {"replay": {"users": "train"}},  # replay.metrics.Novelty
    "shannon_entropy": {
        "ms_recommenders": {"base": 2.0, "per_item": False},  # distributional_coverage
        "recbole": {"base": math.e, "per_item": True},  # ShannonEntropy
    },
    "self_information": {
        "rectools": {"popularity": "users", "cold": "one_user", "normalise": False, "divide_by": "list",
                     "mean": "users"},  # MeanInvUserFreq
        "rs_metrics": {"popularity": "users", "cold": "one_user", "normalise": False, "divide_by": "list",
                       "mean": "users"},  # surprisal
        "replay": {"popularity": "users", "cold": "one_user", "normalise": True, "divide_by": "k",
                   "mean": "users"},  # Surprisal
        "ms_recommenders": {"popularity": "interactions", "cold": "zero", "normalise": False, "divide_by": "list",
                            "mean": "rows"},  # novelty
    },
    "average_popularity": {
        "rectools": {"popularity": "interactions", "share": False},  # AvgRecPopularity(normalize=False)
        "rs_metrics": {"popularity": "users", "share": True},  # popularity
        "recbole": {"popularity": "interactions", "share": False, "repeats": True},  # AveragePopularity
        "elliot": {"popularity": "users", "share": False},  # ARP
    },
    "long_tail": {
        "elliot": {"head_share": 0.8, "count": False},  # APLT (ACLT: count=True)
        "recbole": {"tail_ratio": 0.1, "count": False, "repeats": True},  # TailPercentage
    },
    "intra_list_diversity": {
        "ms_recommenders": {"kind": "cooccurrence_cosine", "single": "skip"},  # diversity / user_diversity
        "rectools": {"kind": "feature_hamming", "single": "zero"},  # IntraListDiversity(Hamming)
    },
    "serendipity": {
        "ms_recommenders": {"definition": "dissimilarity", "kind": "cooccurrence_cosine"},  # serendipity
        "rectools": {"definition": "popularity_rank"},  # Serendipity
    },
}

_DEFAULTS: dict[str, dict[str, Any]] = {
    "coverage": {"over": "catalog", "count": "recommended"},
    "unseen_share": {"users": "lists"},
    "shannon_entropy": {"base": 2.0, "per_item": False},
    "self_information": {"popularity": "users", "cold": "one_user", "normalise": False, "divide_by": "list",
                         "mean": "users"},
    "average_popularity": {"popularity": "interactions", "share": False, "repeats": False},
    "long_tail": {"head_share": None, "tail_ratio": None, "count": False, "repeats": False},
    "intra_list_diversity": {"kind": "cooccurrence_cosine", "single": "skip"},
    "serendipity": {"definition": "dissimilarity", "kind": "cooccurrence_cosine"},
}

_CHOICES: dict[str, tuple[Any, ...]] = {
    "over": ("catalog", "train", "count"),
    "count": ("recommended", "known"),
    "popularity": ("users", "interactions"),
    "cold": ("one_user", "zero"),
    "divide_by": ("list", "k"),
    "mean": ("users", "rows"),
    "kind": ("cooccurrence_cosine", "feature_cosine", "feature_hamming"),
    "single": ("skip", "zero"),
    "definition": ("dissimilarity", "popularity_rank"),
    "users": ("lists", "train"),
}


def _options(measure: str, dialect: str | None, given: dict[str, Any]) -> dict[str, Any]:
    """Defaults, then the dialect's options, then the options given explicitly (not None); each checked."""
    chosen = dict(_DEFAULTS[measure])
    if dialect is not None:
        presets = DIALECTS[measure]
        name = dialect.split("@")[0].lower()
        if name not in presets:
            raise InputError(f"{measure}: no {dialect!r} definition; defined by {', '.join(presets)}")
        chosen.update(presets[name])
    chosen.update({key: value for key, value in given.items() if value is not None})
    for key, value in chosen.items():
        if key in _CHOICES and not isinstance(value, bool) and value not in _CHOICES[key]:
            raise InputError(f"{measure}: {key}={value!r}; one of {', '.join(map(str, _CHOICES[key]))}")
    return chosen


_FAMILY = {"ShannonEntropy": "Entropy", "APLT": "LongTail", "ACLT": "LongTail"}
"""The rankwise family of a measure these functions name otherwise."""
_AS_PARAM: dict[str, tuple[str, dict[Any, str] | None]] = {
    "base": ("log", {2.0: "log2", math.e: "ln"}), "per_item": ("divide", {True: "items", False: "none"}),
    "normalise": ("normalise", {True: "yes", False: "no"}), "share": ("share", {True: "yes", False: "no"}),
    "count": ("count", {True: "yes", False: "no"}), "divide_by": ("divide", None),
    "repeats": ("repeats", {True: "each", False: ""}),  # once: the default, said by nothing
    "mean": ("mean", {"users": "query", "rows": "rows"}), "users": ("", {"lists": ""}), "catalog": ("", None),
}  # fmt: skip
"""Option → (the family's parameter, option value → parameter value): how an option in force is said in the measure's
label. ``""``: said by nothing (the catalogue's size is data; ``users=lists`` is the measure itself)."""


def _name(measure: str, options: dict[str, Any], k: int | None) -> str:
    """The label of a result: the rankwise measure it equals, ``str(Measure)`` (so ``parse_measure`` reads it back and
    ``rankwise explain`` explains it), e.g. ``Entropy(log=log2,divide=none)@20`` for ShannonEntropy(base=2,
    per_item=False); options no family parameter says (RePlay's Novelty over training users) keep
    ``NAME(option=value,...)``."""
    from ..measures import Measure

    params: list[tuple[str, Any]] = []
    for key, value in options.items():
        if value is None:
            continue
        name, values = _AS_PARAM.get(key, (key, None))
        if values is not None and value not in values:
            break
        said = values[value] if values is not None else value
        if name and said != "":
            params.append((name, said))
    else:
        try:
            return str(Measure(_FAMILY.get(measure, measure), cutoff=k, params=tuple(params)))
        except MeasureError:
            pass
    shown = ",".join(f"{key}={value:g}" if isinstance(value, float) else f"{key}={value}"
                     for key, value in options.items() if value is not None)  # fmt: skip
    return f"{measure}({shown})" + (f"@{k}" if k is not None else "")


def _result(measure: str, options: dict[str, Any], data: Lists, value: float, per_user: np.ndarray | None = None,
            users: pl.Series | None = None, notes: Iterable[str] = ()) -> BeyondResult:  # fmt: skip
    frame = None
    if per_user is not None:
        frame = pl.DataFrame({USER: users if users is not None else data.users, "value": per_user},
                             schema={USER: pl.String, "value": pl.Float64})  # fmt: skip
    return BeyondResult(_name(measure, options, data.k), float(value), frame, tuple(options.items()), tuple(notes))


# ----------------------------------------------------------------------------------------------------------------
# Flat arrays


@dataclass(frozen=True)
class _Coded:
    """The lists as flat arrays: user index per row (0..U−1 in :attr:`Lists.users` order), item index per row into
    ``items`` (every item of the lists, then of the other inputs given), and the row count of each user."""

    user: np.ndarray
    item: np.ndarray
    items: pl.Series
    sizes: np.ndarray


def _code(data: Lists, *others: pl.Series) -> _Coded:
    frame = data.frame
    items = pl.concat([frame.get_column(ITEM), *[o.cast(pl.String) for o in others]]).unique(maintain_order=True)
    index = pl.DataFrame({ITEM: items, "_i": np.arange(items.len())})
    users = data.users
    uindex = pl.DataFrame({USER: users, "_u": np.arange(users.len())})
    coded = frame.join(uindex, on=USER, maintain_order="left").join(index, on=ITEM, maintain_order="left")
    user = coded.get_column("_u").to_numpy()
    return _Coded(user, coded.get_column("_i").to_numpy(), items, np.bincount(user, minlength=users.len()))


def _index(keys: pl.Series, values: pl.Series) -> np.ndarray:
    """Positions of ``values`` in ``keys`` (distinct; every value must be there)."""
    index = pl.DataFrame({"_key": keys.cast(pl.String), "_i": np.arange(keys.len())})
    return pl.DataFrame({"_key": values.cast(pl.String)}).join(index, on="_key", maintain_order="left") \
        .get_column("_i").to_numpy()  # fmt: skip


def _per_user_mean(coded: _Coded, values: np.ndarray, divide: np.ndarray | None = None) -> np.ndarray:
    """Σ of ``values`` over each user's rows ÷ ``divide`` (default: the user's row count)."""
    sums = np.bincount(coded.user, weights=values, minlength=len(coded.sizes))
    return sums / (coded.sizes if divide is None else divide)


def _train_counts(train: pl.DataFrame, items: pl.Series) -> tuple[np.ndarray, int, int]:
    """(training users of each of ``items`` — 0 when unseen, number of training users, number of training pairs)."""
    counts = train.group_by(ITEM).len()
    joined = pl.DataFrame({ITEM: items}).join(counts, on=ITEM, how="left", maintain_order="left")
    return joined.get_column("len").fill_null(0).to_numpy().astype(np.float64), train.get_column(USER).n_unique(), \
        train.height  # fmt: skip


def _need(value: Any, what: str, measure: str) -> None:
    if value is None:
        raise InputError(f"{measure} needs {what}; pass it as {what.split(' (')[0].split()[-1]}=")


def _catalogue(catalog: Any, train: pl.DataFrame | None, measure: str) -> tuple[int, pl.Series | None]:
    """(catalogue size, its items or None when only the size was given); see
    :func:`rankwise.engine.training.catalogue_size`."""
    return catalogue_size(catalog, train.get_column(ITEM).unique() if train is not None else None, measure)


# ----------------------------------------------------------------------------------------------------------------
# Coverage and concentration (global measures)


def coverage(recs: Any, *, k: int | None = None, over: str | None = None, count: str | None = None,
             train: Any = None, catalog: Any = None, dialect: str | None = None) -> BeyondResult:  # fmt: skip
    r"""Catalogue coverage: how many distinct items the lists recommend.

    .. math:: \mathrm{Coverage@k} = \frac{|\bigcup_u L_u^{k} \cap S|}{|D|}

    ``over`` picks D: ``catalog`` (the catalogue), ``train`` (the training items) or ``count`` (no division: the
    absolute number of items). ``count`` picks S: ``recommended`` (every recommended item counts) or ``known``
    (only recommended items that are in D).

    Dialects: RePlay ``Coverage`` (train, known), MS Recommenders ``catalog_coverage`` (train, recommended),
    rs_metrics ``coverage(items, recs)`` (catalog, known: the share of the given items that are recommended),
    RecBole ``ItemCoverage`` (catalog, recommended; RecBole's ``num_items`` counts its padding item, so pass
    catalog = n_items + 1 to reproduce it), Elliot ``ItemCoverage`` (count).
    """
    options = _options("coverage", dialect, {"over": over, "count": count})
    data = lists(recs, k)
    recommended = data.frame.get_column(ITEM).unique()
    train_pairs = interactions(train) if train is not None else None
    if options["over"] == "train":
        _need(train_pairs, "training interactions (train)", "coverage over the training items")
        assert train_pairs is not None
        denominator_items: pl.Series | None = train_pairs.get_column(ITEM).unique()
        size = train_pairs.get_column(ITEM).n_unique()
    else:
        size, denominator_items = _catalogue(catalog, train_pairs, "coverage") if options["over"] == "catalog" or \
            options["count"] == "known" else (0, None)  # fmt: skip
    if options["count"] == "known" and denominator_items is not None:  # a catalogue given as a number holds all
        numerator = int(recommended.is_in(denominator_items.implode()).sum())
    else:
        numerator = recommended.len()
    if options["over"] == "catalog" and numerator > size:
        raise InputError(f"coverage: the lists hold {numerator} distinct items, more than the catalogue's {size}")
    return _result("Coverage", options, data, coverage_from(numerator, size, options["over"]))


def _item_counts(data: Lists) -> np.ndarray:
    return data.frame.group_by(ITEM).len().get_column("len").to_numpy().astype(np.float64)


def shannon_entropy(recs: Any, *, k: int | None = None, base: float | None = None, per_item: bool | None = None,
                    dialect: str | None = None) -> BeyondResult:  # fmt: skip
    r"""Shannon entropy of how often each item is recommended.

    .. math:: H = -\sum_i p_i \log_b p_i,\qquad p_i = \frac{c_i}{\sum_j c_j}

    with c_i the number of lists (cut at k) that hold item i. ``per_item=True`` divides H by the number of distinct
    recommended items. Dialects: MS Recommenders ``distributional_coverage`` (b = 2), RecBole ``ShannonEntropy``
    (b = e, ÷ distinct items; RecBole's Σ c_j is users × k, the same for full lists).
    """
    options = _options("shannon_entropy", dialect, {"base": base, "per_item": per_item})
    if not (isinstance(options["base"], (int, float)) and options["base"] > 1):
        raise InputError(f"shannon_entropy: base must be a number > 1, not {options['base']!r}")
    data = lists(recs, k)
    counts = _item_counts(data)
    if counts.size == 0:
        return _result("ShannonEntropy", options, data, math.nan, notes=["no recommendations"])
    return _result("ShannonEntropy", options, data,
                   entropy_from_counts(counts, options["base"], bool(options["per_item"])))  # fmt: skip


def distributional_coverage(recs: Any, *, k: int | None = None) -> BeyondResult:
    """MS Recommenders' ``distributional_coverage``: :func:`shannon_entropy` with base 2 (see there)."""
    return shannon_entropy(recs, k=k, dialect="ms_recommenders")


def gini_index(recs: Any, *, k: int | None = None, catalog: Any = None, train: Any = None) -> BeyondResult:
    r"""Gini index of how often each catalogue item is recommended (0: every item equally often, → 1: a few items
    take every slot).

    .. math:: G = \frac{\sum_{j=1}^{n} (2j - n - 1)\, c_{(j)}}{n \sum_j c_{(j)}}

    with n the catalogue size, c_(j) the recommendation counts sorted ascending, items never recommended counting 0.
    LensKit's ``ListGini`` (``lenskit.stats.gini`` over ``item_count`` counts) and RecBole's ``GiniIndex`` (n =
    ``num_items``, which counts the padding item: pass catalog = n_items + 1) define it so.
    """
    data = lists(recs, k)
    train_pairs = interactions(train) if train is not None else None
    size, _ = _catalogue(catalog, train_pairs, "gini_index")
    counts = _item_counts(data)
    if counts.size > size:
        raise InputError(f"gini_index: the lists hold {counts.size} distinct items, more than the catalogue's {size}")
    return _result("Gini", {"catalog": size}, data, gini_from_counts(counts, size))


# ----------------------------------------------------------------------------------------------------------------
# Novelty and popularity (per user)


def unseen_share(recs: Any, *, train: Any, k: int | None = None, users: str | None = None,
                 dialect: str | None = None) -> BeyondResult:  # fmt: skip
    r"""Novelty as the share of each list the user has not interacted with in training (RePlay's ``Novelty``).

    .. math:: \mathrm{Novelty@k}(u) = 1 - \frac{|L_u^k \cap T_u|}{|L_u^k|}

    A user without training interactions scores 1. ``users``: the mean is over the users with a list (``lists``)
    or, as RePlay does (it joins the lists to the training users), over every training user (``train``): a
    training user without a list scores 1, a user with a list but no training interaction is left out (counted).
    """
    options = _options("unseen_share", dialect, {"users": users})
    _need(train, "training interactions (train)", "unseen_share")
    data = lists(recs, k)
    pairs = interactions(train)
    seen = data.frame.join(pairs.with_columns(pl.lit(1.0).alias("_seen")), on=[USER, ITEM], how="left",
                           maintain_order="left").get_column("_seen")  # fmt: skip
    coded = _code(data)
    per_user = 1.0 - _per_user_mean(coded, seen.fill_null(0.0).to_numpy())
    if options["users"] == "lists":
        return _result("Novelty", options, data, per_user.mean() if per_user.size else math.nan, per_user)
    train_users = pairs.get_column(USER).unique(maintain_order=True)
    values = pl.DataFrame({USER: train_users}).join(pl.DataFrame({USER: data.users, "v": per_user}), on=USER,
                                                   how="left", maintain_order="left").get_column("v")  # fmt: skip
    notes = []
    if values.null_count():
        notes.append(f"{values.null_count()} training users without a list score 1")
    outside = data.users.len() - data.users.is_in(train_users.implode()).sum()
    if outside:
        notes.append(f"{outside} users with a list but no training interaction are left out")
    filled = values.fill_null(1.0).to_numpy()
    return _result("Novelty", options, data, filled.mean() if filled.size else math.nan, filled, train_users, notes)


def self_information(recs: Any, *, train: Any, k: int | None = None, popularity: str | None = None,
                     cold: str | None = None, normalise: bool | None = None, divide_by: str | None = None,
                     mean: str | None = None, dialect: str | None = None) -> BeyondResult:  # fmt: skip
    r"""Novelty as self-information (surprisal) of the recommended items.

    .. math:: I(i) = -\log_2 p(i),\qquad \mathrm{Nov}(u) = \frac{1}{D_u} \sum_{i \in L_u^k} I(i)

    ``popularity``: p(i) = n_users(i) / n_users (``users``) or n_interactions(i) / n_interactions
    (``interactions``; with distinct pairs these counts agree and only the denominators differ). ``cold`` (items
    without training interactions): ``one_user`` (p = 1 / N, as if one user/interaction) or ``zero`` (I = 0).
    ``normalise``: I(i) ÷ log2 N (in [0, 1]). ``divide_by``: D_u = |L_u^k| (``list``) or k (``k``; an empty list
    scores 0). ``mean``: over users (``users``) or over every recommended row pooled (``rows``: Σ_u Σ_i I(i) ÷ Σ_u
    |L_u^k|, no per-user value).

    Dialects: RecTools ``MeanInvUserFreq`` and rs_metrics ``surprisal`` (users, one_user, list, users), RePlay
    ``Surprisal`` (users, one_user, normalised, ÷ k), MS Recommenders ``novelty`` (interactions, zero, rows).
    """
    options = _options("self_information", dialect, {"popularity": popularity, "cold": cold, "normalise": normalise,
                                                      "divide_by": divide_by, "mean": mean})  # fmt: skip
    _need(train, "training interactions (train)", "self_information")
    data = lists(recs, k)
    if options["divide_by"] == "k" and data.k is None:
        raise InputError("self_information with divide_by='k' needs k")
    pairs = interactions(train)
    coded = _code(data)
    users_of, n_users, n_pairs = _train_counts(pairs, coded.items)
    total = n_users if options["popularity"] == "users" else n_pairs
    counts = users_of[coded.item]
    cold_rows = counts == 0
    information = self_information_of(counts, total, options["cold"], bool(options["normalise"]))
    notes = [f"{int(cold_rows.sum())} recommended rows hold items without training interactions "
             f"({'I = log2 N' if options['cold'] == 'one_user' else 'I = 0'})"] if cold_rows.any() else []  # fmt: skip
    if options["mean"] == "rows":
        value = information.sum() / information.size if information.size else math.nan
        return _result("SelfInformation", options, data, value, notes=notes)
    divide = np.full(len(coded.sizes), float(data.k or 0)) if options["divide_by"] == "k" else None
    per_user = _per_user_mean(coded, information, divide)
    return _result("SelfInformation", options, data, per_user.mean() if per_user.size else math.nan, per_user,
                   notes=notes)  # fmt: skip


def average_popularity(recs: Any, *, train: Any, k: int | None = None, popularity: str | None = None,
                       share: bool | None = None, repeats: bool | None = None, dialect: str | None = None
                       ) -> BeyondResult:  # fmt: skip
    r"""Average recommendation popularity (ARP): the mean popularity of the items in each list.

    .. math:: \mathrm{ARP}(u) = \frac{1}{|L_u^k|} \sum_{i \in L_u^k} \phi(i)

    φ(i) = the item's number of training users (``popularity="users"``) or interactions (``interactions``; equal
    for distinct pairs); ``share=True`` divides by the number of training users or interactions. Items without
    training interactions count 0; ``repeats=True`` counts a repeated training (user, item) row each time it is
    given (the measure's ``repeats=each``), else once. Mean over users with a list.

    Dialects: RecTools ``AvgRecPopularity`` (interactions; its ``normalize=True`` is share=True), RecBole
    ``AveragePopularity`` (interactions, repeats: dataset.py:1424-1431 counts every row), Elliot ``ARP`` (users),
    rs_metrics ``popularity`` (users, share).
    """
    options = _options("average_popularity", dialect, {"popularity": popularity, "share": share,
                                                       "repeats": repeats})  # fmt: skip
    _need(train, "training interactions (train)", "average_popularity")
    data = lists(recs, k)
    coded = _code(data)
    users_of, n_users, n_pairs = _train_counts(interactions(train, repeats=bool(options["repeats"])), coded.items)
    phi = users_of[coded.item]
    if options["share"]:
        phi = phi / (n_users if options["popularity"] == "users" else n_pairs)
    per_user = _per_user_mean(coded, phi)
    return _result("ARP", options, data, per_user.mean() if per_user.size else math.nan, per_user)


def long_tail_items(train: Any, *, head_share: float | None = None, tail_ratio: float | None = None,
                    repeats: bool = False) -> pl.Series:  # fmt: skip
    """The long-tail items of the training interactions, by one of two definitions (see
    :func:`rankwise.kernels.beyond.long_tail_mask`):

    - ``head_share`` = h (Elliot, after Abdollahpouri et al. 2017): items sorted by training users descending
      (ties by item id) form the short head until their interactions reach h · (all interactions), the item that
      crosses included; every other training item is long tail.
    - ``tail_ratio`` = t (RecBole ``TailPercentage``): t > 1: items with at most t interactions; t ≤ 1: the
      max(⌊t · n_items⌋, 1) least popular items (ties by item id).

    ``repeats``: a repeated training row counts each time (RecBole's item counter), else once.
    """
    if (head_share is None) == (tail_ratio is None):
        raise InputError("long tail: give head_share (Elliot) or tail_ratio (RecBole), one of them")
    if head_share is not None and not 0 < head_share <= 1:
        raise InputError(f"head_share must be in (0, 1], not {head_share!r}")
    if tail_ratio is not None and not tail_ratio > 0:
        raise InputError(f"tail_ratio must be > 0, not {tail_ratio!r}")
    counts = interactions(train, repeats=repeats).group_by(ITEM).len()
    items = counts.get_column(ITEM)
    return items.filter(pl.Series(long_tail_mask(items, counts.get_column("len").to_numpy(), head_share, tail_ratio)))


def long_tail(recs: Any, *, train: Any, k: int | None = None, head_share: float | None = None,
              tail_ratio: float | None = None, count: bool | None = None, repeats: bool | None = None,
              dialect: str | None = None) -> BeyondResult:  # fmt: skip
    r"""Long-tail share (APLT) or count (ACLT, ``count=True``) of each list.

    .. math:: \mathrm{APLT}(u) = \frac{|L_u^k \cap \Gamma|}{|L_u^k|},\qquad \mathrm{ACLT}(u) = |L_u^k \cap \Gamma|

    with Γ the long-tail items (:func:`long_tail_items`). Mean over users with a list. Dialects: Elliot ``APLT`` /
    ``ACLT`` (head_share = 0.8), RecBole ``TailPercentage`` (tail_ratio = 0.1).
    """
    options = _options("long_tail", dialect, {"head_share": head_share, "tail_ratio": tail_ratio, "count": count,
                                              "repeats": repeats})  # fmt: skip
    if options["head_share"] is not None and options["tail_ratio"] is not None:
        given = "head_share" if head_share is not None else "tail_ratio"
        options["tail_ratio" if given == "head_share" else "head_share"] = None
    _need(train, "training interactions (train)", "long_tail")
    if options["head_share"] is None and options["tail_ratio"] is None:
        options["head_share"] = 0.8
    tail = long_tail_items(train, head_share=options["head_share"], tail_ratio=options["tail_ratio"],
                           repeats=bool(options["repeats"]))  # fmt: skip
    data = lists(recs, k)
    coded = _code(data)
    in_tail = data.frame.get_column(ITEM).is_in(tail.implode()).cast(pl.Float64).to_numpy()
    per_user = _per_user_mean(coded, in_tail, np.ones(len(coded.sizes)) if options["count"] else None)
    name = "ACLT" if options["count"] else "APLT"
    return _result(name, options, data, per_user.mean() if per_user.size else math.nan, per_user)


# ----------------------------------------------------------------------------------------------------------------
# Similarity between items: unit vectors e_i with cos(i, j) = e_i · e_j


def _vectors(kind: str, items: pl.Series, train: pl.DataFrame | None, features: Any, measure: str) -> Any:
    """:func:`rankwise.engine.similarity.item_vectors` of ``items`` with the training pairs (text user_id, item_id)."""
    index = None if train is None else TrainingIndex.of(train.rename({USER: QID, ITEM: DOCID}))
    return item_vectors(kind, items, index, features, measure)


def intra_list_diversity(recs: Any, *, k: int | None = None, kind: str | None = None, single: str | None = None,
                         train: Any = None, features: Any = None, dialect: str | None = None) -> BeyondResult:
    r"""Intra-list diversity: the mean distance between the items of each list, over its |L|(|L|−1)/2 pairs.

    .. math:: \mathrm{ILD}(u) = \frac{2}{|L_u|(|L_u|-1)} \sum_{a < b \in L_u} d(a, b)

    ``kind``: ``cooccurrence_cosine`` d = 1 − |U_a ∩ U_b| / √(|U_a| |U_b|) from training interactions (items never
    co-occurring, or unseen in training, have similarity 0); ``feature_cosine`` d = 1 − cos(f_a, f_b);
    ``feature_hamming`` d = the number of differing 0/1 features. Computed without enumerating pairs: with unit
    vectors e, Σ_{a<b} e_a·e_b = (‖Σ_a e_a‖² − Σ_a ‖e_a‖²)/2, and for 0/1 features Σ_{a<b} ‖f_a − f_b‖² =
    |L| Σ_a ‖f_a‖² − ‖Σ_a f_a‖². ``single``: a list with one item is undefined (``skip``, left out and counted) or
    scores 0 (``zero``).

    Dialects: MS Recommenders ``diversity`` / ``user_diversity`` (cooccurrence_cosine, or feature_cosine with
    ``item_feature_vector``; skip), RecTools ``IntraListDiversity`` with ``PairwiseHammingDistanceCalculator``
    (feature_hamming; zero).
    """
    options = _options("intra_list_diversity", dialect, {"kind": kind, "single": single})
    data = lists(recs, k)
    coded = _code(data)
    train_pairs = interactions(train) if train is not None else None
    vectors = _vectors(options["kind"], coded.items, train_pairs, features, "intra_list_diversity")
    total, pairs = pairwise_distance_sums(coded.user, coded.item, len(coded.sizes), vectors, options["kind"])
    with np.errstate(invalid="ignore", divide="ignore"):
        per_user = total / pairs
    singles = pairs == 0
    notes = []
    if singles.any():
        if options["single"] == "zero":
            per_user[singles] = 0.0
        else:
            notes.append(f"{int(singles.sum())} users with a single item are left out (no pair)")
    users = data.users
    if options["single"] == "skip" and singles.any():
        users, per_user = users.filter(pl.Series(~singles)), per_user[~singles]
    return _result("ILD", options, data, per_user.mean() if per_user.size else math.nan, per_user, users, notes)


# ----------------------------------------------------------------------------------------------------------------
# Against other lists, and serendipity


def unexpectedness(recs: Any, *, baseline: Any, k: int) -> BeyondResult:
    r"""Unexpectedness against a baseline's lists, as RePlay's ``Unexpectedness`` defines it.

    .. math:: \mathrm{Unexp@k}(u) = 1 - \frac{|L_u^k \cap B_u^k|}{k}

    A user whose list or baseline list is empty scores 0. Mean over the users with a list.
    """
    _need(baseline, "the baseline's lists (baseline)", "unexpectedness")
    data = lists(recs, k)
    base = lists(baseline, k).frame.select(USER, ITEM).with_columns(pl.lit(1.0).alias("_both"))
    both = data.frame.join(base, on=[USER, ITEM], how="left", maintain_order="left").get_column("_both")
    coded = _code(data)
    per_user = 1.0 - _per_user_mean(coded, both.fill_null(0.0).to_numpy(), np.full(len(coded.sizes), float(k)))
    has_base = data.users.is_in(base.get_column(USER).unique().implode()).to_numpy()
    per_user[~has_base] = 0.0
    notes = [f"{int((~has_base).sum())} users have no baseline list (scored 0)"] if (~has_base).any() else []
    return _result("Unexpectedness", {}, data, per_user.mean() if per_user.size else math.nan, per_user, notes=notes)


def serendipity(recs: Any, *, truth: Any, train: Any, k: int | None = None, definition: str | None = None,
                kind: str | None = None, catalog: Any = None, features: Any = None,
                dialect: str | None = None) -> BeyondResult:  # fmt: skip
    r"""Serendipity: relevant recommendations that are also unexpected. rel(u, i) = 1 when (u, i) is in ``truth``.

    ``definition="dissimilarity"`` (MS Recommenders ``serendipity``):

    .. math:: \mathrm{Ser}(u) = \frac{1}{|L_u|} \sum_{i \in L_u} \Big(1 - \frac{1}{|T_u|}
              \sum_{j \in T_u} \cos(i, j)\Big)\, \mathrm{rel}(u, i)

    with T_u the user's training items and cos from item co-occurrence or features (``kind``, as in
    :func:`intra_list_diversity`); users without training items are left out (counted).

    ``definition="popularity_rank"`` (RecTools ``Serendipity``), with n the catalogue size, r the item's rank in
    the list and ρ(i) the item's dense rank by training interactions (1 = most popular):

    .. math:: \mathrm{Ser}(u) = \frac{1}{|L_u|} \sum_{i \in L_u} \max\Big(0, \frac{n + 1 - r}{n}
              - \frac{n + 1 - \rho(i)}{n}\Big)\, \mathrm{rel}(u, i)

    (an item without training interactions has (n + 1 − ρ)/n = 0). Mean over users.
    """
    options = _options("serendipity", dialect, {"definition": definition, "kind": kind})
    _need(truth, "the relevant test interactions (truth)", "serendipity")
    _need(train, "training interactions (train)", "serendipity")
    data = lists(recs, k)
    train_pairs = interactions(train)
    relevant = data.frame.join(interactions(truth, "truth").unique().with_columns(pl.lit(1.0).alias("_rel")),
                               on=[USER, ITEM], how="left", maintain_order="left").get_column("_rel")  # fmt: skip
    rel = relevant.fill_null(0.0).to_numpy()
    if options["definition"] == "popularity_rank":
        options.pop("kind")
        coded = _code(data)
        size, _ = _catalogue(catalog, train_pairs, "serendipity")
        users_of, _, _ = _train_counts(train_pairs, coded.items)
        distinct = np.unique(train_pairs.group_by(ITEM).len().get_column("len").to_numpy().astype(np.float64))[::-1]
        dense = np.searchsorted(-distinct, -users_of) + 1.0
        any_user = np.where(users_of > 0, (size + 1 - dense) / size, 0.0)[coded.item]
        user = (size + 1 - data.frame.get_column("rank").to_numpy()) / size
        per_user = _per_user_mean(coded, np.maximum(user - any_user, 0.0) * rel)
        return _result("Serendipity", {**options, "catalog": size}, data,
                       per_user.mean() if per_user.size else math.nan, per_user)  # fmt: skip
    train_users = train_pairs.get_column(USER).unique()
    keep = data.frame.get_column(USER).is_in(train_users.implode())
    dropped = data.users.len() - data.frame.filter(keep).get_column(USER).n_unique()
    kept = Lists(data.frame.filter(keep), data.k)
    coded = _code(kept, train_pairs.get_column(ITEM))
    vectors = _vectors(options["kind"], coded.items, train_pairs, features, "serendipity")
    history = train_pairs.filter(pl.col(USER).is_in(kept.users.implode()))
    history_user = _index(kept.users, history.get_column(USER))
    sums = row_sums(history_user, _index(coded.items, history.get_column(ITEM)), len(coded.sizes), vectors)
    similarity = paired_dots(vectors, coded.item, sums, coded.user)
    mean_similarity = similarity / np.bincount(history_user, minlength=len(coded.sizes))[coded.user]
    per_user = _per_user_mean(coded, (1.0 - mean_similarity) * rel[keep.to_numpy()])
    notes = [f"{dropped} users without training interactions are left out"] if dropped else []
    return _result("Serendipity", options, kept, per_user.mean() if per_user.size else math.nan, per_user,
                   notes=notes)  # fmt: skip
