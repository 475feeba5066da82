"""Elliot's own metric code, run in this process: the fairness and bias metrics of sisinflab/elliot at fc27efe
(``elliot/evaluation/metrics/``), from the checkout that env var ``RANKWISE_ELLIOT`` names (the directory holding
``elliot/``); :func:`elliot_or_skip` skips a test with the reason when it is unset or lacks the files.

Elliot does not install (it pins TensorFlow 1), but these modules need only numpy and pandas, and
``elliot.evaluation.metrics.base_metric`` / ``metrics_utils``. The packages ``elliot``, ``elliot.evaluation`` and
``elliot.evaluation.metrics`` are put in ``sys.modules`` as empty packages pointing at the checkout's folders
(:func:`_stub_packages`), because their ``__init__`` files import every metric, the evaluator and the dataset
loaders (TensorFlow, scipy models, hyperopt): the metric modules themselves, their sub-packages' ``__init__`` files
(``fairness/MAD``, ``fairness/BiasDisparity``, ``bias/pop_rsp``...), ``relevance`` and ``popularity_utils`` run
unchanged from the checkout.

:func:`eval_objects` builds what Elliot's evaluator hands a metric (``elliot/evaluation/evaluator.py``): ``cutoff``,
``relevance`` (``relevance.Relevance(test, threshold)``), ``data`` (``train_dict``, ``private_items``,
``sp_i_train``, ``transactions``, as ``elliot/dataset/dataset.py`` defines them) and ``pop``
(``popularity_utils.Popularity(data)``). Clustering files are written as Elliot reads them: TSV, no header, ``id
<tab> cluster`` with clusters 0..n−1 (:func:`write_clustering`).
"""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest

ENV = "RANKWISE_ELLIOT"

Recommendations = dict[int, list[tuple[int, float]]]
"""Elliot's recommendations: ``{user: [(item, score), ...]}`` in rank order."""


def elliot_or_skip() -> Path:
    """The checkout ``RANKWISE_ELLIOT`` names, its packages stubbed in; skips when it is unset or incomplete."""
    root = os.environ.get(ENV)
    if not root:
        pytest.skip(f"{ENV} is unset: point it at a checkout of sisinflab/elliot (fc27efe) to run its own metrics")
    base = Path(root) / "elliot" / "evaluation"
    if not (base / "metrics" / "fairness" / "MAD" / "ItemMADranking.py").is_file():
        pytest.skip(f"{ENV}={root} has no elliot/evaluation/metrics/fairness/MAD/ItemMADranking.py")
    _stub_packages(Path(root))
    return Path(root)


def _stub_packages(root: Path) -> None:
    """Empty packages for ``elliot``, ``elliot.evaluation``, ``elliot.evaluation.metrics`` over the checkout's
    folders (their ``__init__`` files import TensorFlow-bound modules; see the module docstring)."""
    for name, folder in (("elliot", root / "elliot"), ("elliot.evaluation", root / "elliot" / "evaluation"),
                         ("elliot.evaluation.metrics", root / "elliot" / "evaluation" / "metrics")):  # fmt: skip
        module = sys.modules.get(name)
        if module is None or list(getattr(module, "__path__", [])) != [str(folder)]:
            package = types.ModuleType(name)
            package.__path__ = [str(folder)]
            sys.modules[name] = package


def metric(path: str, name: str) -> Any:
    """The class ``name`` of module ``elliot.evaluation.metrics.<path>``."""
    return getattr(importlib.import_module(f"elliot.evaluation.metrics.{path}"), name)


def eval_objects(k: int, train: dict[int, dict[int, float]], test: dict[int, dict[int, float]], threshold: float
                 ) -> types.SimpleNamespace:  # fmt: skip
    """What Elliot's evaluator gives a metric: cutoff, relevance, data, pop (module docstring)."""
    from scipy.sparse import csr_matrix

    relevance = importlib.import_module("elliot.evaluation.relevance.relevance").Relevance(test, threshold)
    popularity = importlib.import_module("elliot.evaluation.popularity_utils.popularity").Popularity
    # elliot/dataset/dataset.py (fc27efe): users and items of train_dict, private ids by enumeration, the binary
    # user-item matrix, transactions = the number of training ratings
    users = list(train.keys())
    items = list({i for ratings in train.values() for i in ratings})
    public_users = {u: p for p, u in enumerate(users)}
    public_items = {i: p for p, i in enumerate(items)}
    rows = [public_users[u] for u, ratings in train.items() for _ in ratings]
    cols = [public_items[i] for ratings in train.values() for i in ratings]
    matrix = csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(len(users), len(items)))
    data = types.SimpleNamespace(train_dict=train, private_items=dict(enumerate(items)), sp_i_train=matrix,
                                 transactions=sum(len(v) for v in train.values()))  # fmt: skip
    return types.SimpleNamespace(cutoff=k, relevance=relevance, data=data, pop=popularity(data))


def write_clustering(path: Path, clusters: dict[int, int]) -> str:
    """``clusters`` as Elliot's clustering file (TSV, no header: id, cluster); its path."""
    path.write_text("".join(f"{i}\t{c}\n" for i, c in clusters.items()))
    return str(path)


def value_named(metrics: list[Any], name: str) -> float:
    """The value of the metric object named ``name`` among ``metrics`` (Elliot's ``get()`` list)."""
    found = [m for m in metrics if m.name() == name]
    assert len(found) == 1, [m.name() for m in metrics]
    return float(found[0].eval())


class Case:
    """One random recommendation setting, in Elliot's form and in rankwise's: ``recs`` (every user's list, distinct
    scores, rank order), ``train`` and ``test`` ratings (1–5; every listed user has training ratings, which Elliot's
    RSP reads unguarded), ``items`` / ``users`` clusters 0..n−1 (every cluster used; some ids in none), ``k``,
    ``threshold``."""

    def __init__(self, seed: int) -> None:
        rng = np.random.default_rng(seed)
        n_users, n_items = int(rng.integers(3, 16)), int(rng.integers(5, 31))
        self.k, self.threshold = int(rng.integers(1, 11)), int(rng.integers(1, 6))
        self.train: dict[int, dict[int, float]] = {}
        self.test: dict[int, dict[int, float]] = {}
        self.recs: Recommendations = {}
        for u in range(n_users):
            seen = rng.choice(n_items, size=int(rng.integers(1, max(2, n_items // 2))), replace=False)
            self.train[u] = {int(i): float(rng.integers(1, 6)) for i in seen}
            unseen = np.setdiff1d(np.arange(n_items), seen)
            if rng.random() < 0.85 and len(unseen):
                judged = rng.choice(unseen, size=int(rng.integers(1, len(unseen) + 1)), replace=False)
                self.test[u] = {int(i): float(rng.integers(1, 6)) for i in judged}
            if rng.random() < 0.9 and len(unseen):
                listed = rng.choice(unseen, size=int(rng.integers(1, len(unseen) + 1)), replace=False)
                scores = np.sort(rng.choice(10_000, size=len(listed), replace=False))[::-1] / 100.0
                self.recs[u] = [(int(i), float(s)) for i, s in zip(listed, scores)]
        self.items = _clusters(rng, n_items, int(rng.integers(2, 5)))
        self.users = _clusters(rng, n_users, int(rng.integers(2, 4)))

    def run(self) -> dict[str, dict[str, float]]:
        return {str(u): {str(i): s for i, s in lst} for u, lst in self.recs.items()}

    def qrels(self) -> dict[str, dict[str, int]]:
        return {str(u): {str(i): int(r) for i, r in ratings.items()} for u, ratings in self.test.items()}

    def train_pairs(self) -> dict[str, list[str]]:
        return {str(u): [str(i) for i in ratings] for u, ratings in self.train.items()}


def _clusters(rng: np.random.Generator, n: int, n_clusters: int) -> dict[int, int]:
    """Ids 0..n−1 (about 1 in 8 left out) in ``n_clusters`` clusters, each used (Elliot indexes by cluster)."""
    ids = [i for i in range(n) if rng.random() >= 0.125] or [0]
    n_clusters = min(n_clusters, len(ids))
    labels = np.concatenate([np.arange(n_clusters), rng.integers(0, n_clusters, size=len(ids) - n_clusters)])
    rng.shuffle(labels)
    return {i: int(c) for i, c in zip(ids, labels)}


def labels(clusters: dict[int, int]) -> dict[str, str]:
    """Elliot's clusters as rankwise group labels (the same numbers as text: ordered as numbers, as Elliot's)."""
    return {str(i): str(c) for i, c in clusters.items()}


def ml100k_groups_or_skip() -> tuple[Path, Path]:
    """RecBole's ml-100k.user and ml-100k.item, from the reference env's installed package."""
    python = os.environ.get("RANKWISE_REFERENCE_PYTHON")
    if not python:
        pytest.skip("RANKWISE_REFERENCE_PYTHON is unset: RecBole's ml-100k.user / .item come from its wheel")
    asked = subprocess.run([python, "-c", "import recbole, os; print(os.path.dirname(recbole.__file__))"],
                           capture_output=True, text=True, check=False)  # fmt: skip
    folder = Path(asked.stdout.strip() or "/nonexistent") / "dataset_example" / "ml-100k"
    if asked.returncode or not (folder / "ml-100k.item").is_file():
        pytest.skip(f"{python} has no recbole/dataset_example/ml-100k")
    return folder / "ml-100k.user", folder / "ml-100k.item"


def first_genre_codes(item_file: Path) -> dict[int, int]:
    """Each item's first genre of ``class:token_seq`` (a real, single-valued item attribute), coded 0..n−1 in text
    order of the genres."""
    frame = pl.read_csv(item_file, separator="\t", quote_char=None, infer_schema=False)
    genre = frame.select(pl.col("item_id:token").cast(pl.Int64).alias("item"),
                         pl.col("class:token_seq").str.split(" ").list.first().alias("genre")).drop_nulls()  # fmt: skip
    names = sorted(set(genre.get_column("genre").to_list()))
    return {int(i): names.index(g) for i, g in genre.iter_rows()}


def drama_comedy_codes(item_file: Path) -> dict[int, int]:
    """Three coarse item groups from the genres of ``class:token_seq``: 0 Drama, 1 Comedy (not Drama), 2 any other
    (so that every group reaches the top 10 of a few hundred users; the first genre has groups no list reaches)."""
    frame = pl.read_csv(item_file, separator="\t", quote_char=None, infer_schema=False)
    pairs = frame.select(pl.col("item_id:token").cast(pl.Int64), pl.col("class:token_seq").fill_null("")).iter_rows()
    return {int(i): 0 if "Drama" in g.split(" ") else 1 if "Comedy" in g.split(" ") else 2 for i, g in pairs}


def user_codes(user_file: Path, column: str) -> dict[int, int]:
    """A user attribute (``gender``, ``occupation``) coded 0..n−1 in text order."""
    frame = pl.read_csv(user_file, separator="\t", quote_char=None, infer_schema=False)
    values = frame.select(pl.col("user_id:token").cast(pl.Int64), pl.col(f"{column}:token"))
    names = sorted(set(values.get_column(f"{column}:token").to_list()))
    return {int(u): names.index(v) for u, v in values.iter_rows()}


def ml100k_case() -> Case:
    """The EASE top-20 lists of :mod:`recsys_lists` as a :class:`Case` (k = 10, threshold 4)."""
    from recsys_lists import THRESHOLD, lists, skip_without_data

    skip_without_data()
    data = lists("ease")
    case = object.__new__(Case)
    case.k, case.threshold = 10, THRESHOLD
    case.train, case.test, case.recs = {}, {}, {}
    for u, i, r in data.train.select("user_id", "item_id", "rating").iter_rows():
        case.train.setdefault(int(u), {})[int(i)] = float(r)
    for u, i, r in data.truth.select("user_id", "item_id", "rating").iter_rows():
        case.test.setdefault(int(u), {})[int(i)] = float(r)
    for u, i, s in data.recs.sort(["user_id", "rank"]).select("user_id", "item_id", "score").iter_rows():
        case.recs.setdefault(int(u), []).append((int(i), float(s)))
    case.users, case.items = {}, {}
    return case
