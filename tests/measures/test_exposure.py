"""Expected exposure (EE-L, EE-D, EE-R; Diaz et al., CIKM 2020) against its reference implementation, diazf/expeval.

- ``test_against_expeval``: expeval's own code (``exposure.target``, ``exposure.expected``, ``metrics.py``'s classes
  and bounds, called as ``expeval.main`` calls them, on files it reads with ``data.read_qrels`` and
  ``data.read_topfile``) on random qrels and runs, under every option: rbp and gerr browsing, p and u, -B, -C,
  normalised or not, and stochastic rankings — the ties' expectation (``ties=average``) against expeval fed every
  order of the tied documents as samples. expeval is not on PyPI and GitHub is unreachable when the tests run:
  set ``RANKWISE_EXPEVAL`` to a checkout of github.com/diazf/expeval (69ab070); without it the test skips.
- ``test_pinned_formulas``: the same comparisons against the formulas of expeval's source, transcribed per
  document (dicts and loops, as exposure.py loops; cited by file and function), present without expeval.
- ``test_by_hand``: a three-document query worked out by hand.
"""

from __future__ import annotations

import importlib
import itertools
import math
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankwise
from conftest import close
from rankwise.pipeline import partitioned

EXPEVAL = os.environ.get("RANKWISE_EXPEVAL")
Qrels = dict[str, dict[str, int]]
Run = dict[str, dict[str, float]]


# ---------------------------------------------------------------------------------------------------------------
# Random cases: grades 0..3, unjudged retrieved documents, judged documents not retrieved, ties of up to 3 documents


@st.composite
def cases(draw: Any, ties: bool) -> tuple[Qrels, Run]:
    qrels: Qrels = {}
    run: Run = {}
    for q in range(draw(st.integers(1, 3))):
        docs = [f"d{i}" for i in range(draw(st.integers(1, 7)))]
        judged = draw(st.lists(st.sampled_from(docs), unique=True, min_size=1))
        qrels[f"q{q}"] = {d: draw(st.integers(0, 3)) for d in judged}
        if q and draw(st.booleans()):
            continue  # a query of the qrels without a ranking
        retrieved = draw(st.lists(st.sampled_from(docs), unique=True, min_size=1))
        values = st.integers(0, 2) if ties else st.integers(0, 10**6)
        scores = draw(st.lists(values, min_size=len(retrieved), max_size=len(retrieved),
                               unique=not ties))  # fmt: skip
        if ties:  # at most two groups of equal scores larger than one and of at most 3: few orders to enumerate
            sizes = sorted([scores.count(s) for s in set(scores)], reverse=True)
            if sizes[0] > 3 or (len(sizes) > 1 and sizes[1] > 1 and sizes[0] * sizes[1] > 6):
                scores = list(range(len(retrieved)))
        run[f"q{q}"] = {d: float(s) for d, s in zip(retrieved, scores, strict=True)}
    return qrels, run


def _samples(ranking: Run, qid: str, ties: bool, k: int | None) -> list[list[str]]:
    """The query's ranking by score descending (distinct scores), or with ``ties`` every order of it with equal
    scores permuted: the samples of a stochastic ranking; each cut at k."""
    if not ties:
        return [sorted(ranking[qid], key=lambda d: -ranking[qid][d])[:k]]
    by_score: dict[float, list[str]] = {}
    for doc, score in ranking[qid].items():
        by_score.setdefault(score, []).append(doc)
    groups = [by_score[s] for s in sorted(by_score, reverse=True)]
    orders = itertools.product(*map(itertools.permutations, groups))
    return [[d for part in order for d in part][:k] for order in orders]


OPTIONS = st.fixed_dictionaries({
    "browse": st.sampled_from(["rbp", "gerr"]), "p": st.sampled_from([0.5, 0.8, 0.3]),
    "u": st.sampled_from([0.5, 0.3]), "judgments": st.sampled_from(["incomplete", "complete"]),
    "grades": st.sampled_from(["graded", "binary"]), "normalise": st.sampled_from(["no", "yes"]),
    "k": st.sampled_from([None, 1, 2, 4]),
})  # fmt: skip
"""Parameters of the measures, and k: each sample (each order of the ties) cut at k, as a run of the top k is."""


def _ours(qrels: Qrels, run: Run, options: dict[str, Any], ties: bool) -> dict[str, tuple[float, float, float]]:
    params = ",".join(f"{k}={v}" for k, v in options.items() if k != "k")
    cut = "" if options["k"] is None else f"@{options['k']}"
    names = [f"EE-L({params}){cut}", f"EE-D({params}){cut}", f"EE-R({params}){cut}"]
    result = rankwise.evaluate(qrels, run, names, ties="average" if ties else None, queries="qrels")
    per_query = result.per_query
    return {q: tuple(per_query[q][n] for n in names) for q in per_query}  # type: ignore[misc]


def _compare(ours: dict[str, tuple[float, float, float]], theirs: dict[str, tuple[float, float, float]]) -> None:
    defined = {q: v for q, v in ours.items() if not math.isnan(v[0])}
    assert defined.keys() == theirs.keys(), (ours, theirs)
    for q, values in theirs.items():
        assert all(close(a, b, rel_tol=1e-9, abs_tol=1e-12) for a, b in zip(defined[q], values, strict=True)), \
            (q, defined[q], values)  # fmt: skip


# ---------------------------------------------------------------------------------------------------------------
# expeval's own code


def read_expeval_files(data: Any, tmp: Path, options: dict[str, Any]) -> tuple[Any, ...]:
    """expeval.main's reading of its options and of the ``qrels`` and ``run`` files in ``tmp`` (expeval.py:29-45):
    (browsing model, p, u, complete, normalise, read_qrels' result, the rankings)."""
    complete = options["judgments"] == "complete"
    return (options["browse"], options["p"], options["u"], complete, options["normalise"] == "yes",
            data.read_qrels(str(tmp / "qrels"), options["grades"] == "binary", complete),
            data.read_topfile(str(tmp / "run")))  # fmt: skip


Orders = dict[str, list[list[str]]]
"""Per query its samples: each a ranking (doc ids, rank 1 first)."""


def write_samples(path: Path, orders: Orders) -> None:
    """The samples as expeval reads them: ``qid sample docno rank score tag`` (data.py read_topfile)."""
    path.write_text("".join(f"{q} s{n} {d} {r} 0 x\n" for q, samples in orders.items()
                            for n, order in enumerate(samples) for r, d in enumerate(order, 1)))  # fmt: skip


def _run_expeval(tmp: Path, qrels: Qrels, run: Run, options: dict[str, Any], ties: bool
                 ) -> dict[str, tuple[float, float, float]]:  # fmt: skip
    """expeval.main's steps on the case written to files, returning (difference, disparity, relevance) per query."""
    return run_expeval_on(tmp, qrels, {q: _samples(run, q, ties, options["k"]) for q in run}, options)


def run_expeval_on(tmp: Path, qrels: Qrels, orders: Orders, options: dict[str, Any]
                   ) -> dict[str, tuple[float, float, float]]:  # fmt: skip
    """expeval.main's steps on qrels and sampled rankings written to files: (difference, disparity, relevance)
    per query."""
    (tmp / "qrels").write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items()))
    write_samples(tmp / "run", orders)
    sys.path.insert(0, str(EXPEVAL))
    try:
        data, exposure = importlib.import_module("data"), importlib.import_module("exposure")
        um, p, u, complete, normalize, (qrels_read, _), permutations = read_expeval_files(data, tmp, options)
        out = {}
        for qid, judged in qrels_read.items():
            _, disparity, relevance, difference = exposure.target(judged, um, p, u, complete)
            if qid not in permutations:  # expeval.main's defaults for a query without a ranking
                disparity.value, relevance.value = disparity.upperBound, relevance.lowerBound
                difference.compute({})  # ‖ε*‖²; expeval.main sets relevance.upperBound, 0 when T has one grade
            else:
                expected = exposure.expected(permutations[qid], judged, um, p, u)
                for metric in (disparity, relevance, difference):
                    metric.compute(expected)
            out[qid] = (difference.float(normalize), disparity.float(normalize), relevance.float(normalize))
        return out
    finally:
        sys.path.remove(str(EXPEVAL))
        for name in ("data", "exposure", "metrics", "util", "permutation"):
            sys.modules.pop(name, None)


@pytest.mark.skipif(not EXPEVAL, reason="RANKWISE_EXPEVAL (a checkout of github.com/diazf/expeval) is not set")
@settings(max_examples=150, deadline=None)
@given(case=st.one_of(cases(ties=False).map(lambda c: (c, False)), cases(ties=True).map(lambda c: (c, True))),
       options=OPTIONS)  # fmt: skip
def test_against_expeval(tmp_path_factory: pytest.TempPathFactory, case: tuple[tuple[Qrels, Run], bool],
                         options: dict[str, Any]) -> None:  # fmt: skip
    (qrels, run), ties = case
    theirs = _run_expeval(tmp_path_factory.mktemp("expeval"), qrels, run, options, ties)
    _compare(_ours(qrels, run, options, ties), theirs)


# ---------------------------------------------------------------------------------------------------------------
# expeval's formulas, transcribed per document


def _pinned_target(judged: dict[str, int], um: str, p: float, u: float) -> dict[str, float]:
    """exposure.py ``target``: grades descending, m documents of grade g after b: (x^b − x^{b+m}) / (m(1 − x)),
    x = p (rbp), p(1 − u) (gerr, g > 0), and (1 − u)^b (p^b − p^{b+m}) / (m(1 − p)) (gerr, g ≤ 0)."""
    levels = sorted({g: sum(1 for v in judged.values() if v == g) for g in judged.values()}.items(), reverse=True)
    per_grade, b = {}, 0
    for g, m in levels:
        if um == "rbp":
            per_grade[g] = (p**b - p ** (b + m)) / (m * (1 - p))
        elif g > 0:
            pp = p * (1 - u)
            per_grade[g] = (pp**b - pp ** (b + m)) / (m * (1 - pp))
        else:
            per_grade[g] = (1 - u) ** b * (p**b - p ** (b + m)) / (m * (1 - p))
        b += m
    return {d: per_grade[g] for d, g in judged.items()}


def _pinned_expected(orders: list[list[str]], judged: dict[str, int], um: str, p: float, u: float
                     ) -> dict[str, float]:  # fmt: skip
    """exposure.py ``expected``: the mean over samples of p^i (rbp) or p^i (1 − u)^{relevant above} (gerr)."""
    exposures: dict[str, float] = {}
    for order in orders:
        above = 0
        for i, doc in enumerate(order):
            exposures[doc] = exposures.get(doc, 0.0) + p**i * ((1 - u) ** above if um == "gerr" else 1) / len(orders)
            above += judged.get(doc, 0) > 0
    return exposures


def _series(x: float, n: float) -> float:
    """util.py ``geometricSeries``: Σ_{i<n} x^i, n = ∞ allowed."""
    return 1 / (1 - x) if n == math.inf else (1 - x**n) / (1 - x)


def pinned_queries(qrels: Qrels, run: Run, options: dict[str, Any], ties: bool
                   ) -> Iterator[tuple[str, dict[str, int], dict[str, float]]]:  # fmt: skip
    """Each query expeval reads (data.read_qrels keeps T: the relevant documents, or every judged one with -C;
    binary grades with -B): (query, its judgments, the expected exposure of each document over the run's samples)."""
    return pinned_on(qrels, {q: _samples(run, q, ties, options["k"]) for q in run}, options)


def pinned_on(qrels: Qrels, orders: Orders, options: dict[str, Any]
              ) -> Iterator[tuple[str, dict[str, int], dict[str, float]]]:  # fmt: skip
    """:func:`pinned_queries` of sampled rankings given as they are."""
    complete = options["judgments"] == "complete"
    for q, docs in qrels.items():
        judged = {d: (min(g, 1) if options["grades"] == "binary" else g) for d, g in docs.items() if complete or g > 0}
        if judged:  # else data.read_qrels keeps no document of the query: expeval skips it
            samples = orders.get(q, [])
            yield q, judged, _pinned_expected(samples, judged, options["browse"], options["p"], options["u"])


def _pinned(qrels: Qrels, run: Run, options: dict[str, Any], ties: bool) -> dict[str, tuple[float, float, float]]:
    """metrics.py's Difference, Disparity, Relevance (values and bounds, util.geometricSeries) per query."""
    return pinned_values(qrels, {q: _samples(run, q, ties, options["k"]) for q in run}, options)


def pinned_values(qrels: Qrels, orders: Orders, options: dict[str, Any]) -> dict[str, tuple[float, float, float]]:
    """:func:`_pinned` of sampled rankings given as they are."""
    um, p, u = options["browse"], options["p"], options["u"]
    complete = options["judgments"] == "complete"
    out = {}
    run = orders
    for q, judged, e in pinned_on(qrels, orders, options):
        target = _pinned_target(judged, um, p, u)
        n, pp = (len(judged) if complete else math.inf), (p if um == "rbp" else p * u)
        t = sorted(target.values())
        norm2 = sum(v * v for v in t)
        d_hi, d_lo = _series(p * p, n), (_series(pp, n) ** 2 / n if complete else 0.0)
        r_hi, r_lo = norm2, (sum(pp**i * v for i, v in enumerate(t)) if complete else 0.0)
        if len(set(judged.values())) <= 1:
            r_hi = r_lo = 0.0
        l_hi = sum((pp**i - v) ** 2 for i, v in enumerate(t)) if complete else norm2 + _series(pp, math.inf)
        difference = sum((e.get(d, 0.0) - target.get(d, 0.0)) ** 2 for d in set(e) | set(target))
        disparity, relevance = sum(v * v for v in e.values()), sum(e[d] * target[d] for d in set(e) & set(target))
        if q not in run:  # expeval.py main: the defaults of a query without a ranking
            disparity, relevance = d_hi, r_lo
        raw = [(difference, 0.0, l_hi, 0.0), (disparity, d_lo, d_hi, 0.0), (relevance, r_lo, r_hi, 1.0)]
        scaled = [v if options["normalise"] == "no" else (default if lo == hi else (v - lo) / (hi - lo))
                  for v, lo, hi, default in raw]  # fmt: skip
        out[q] = (scaled[0], scaled[1], scaled[2])
    return out


@settings(max_examples=200, deadline=None)
@given(case=st.one_of(cases(ties=False).map(lambda c: (c, False)), cases(ties=True).map(lambda c: (c, True))),
       options=OPTIONS)  # fmt: skip
def test_pinned_formulas(case: tuple[tuple[Qrels, Run], bool], options: dict[str, Any]) -> None:
    (qrels, run), ties = case
    _compare(_ours(qrels, run, options, ties), _pinned(qrels, run, options, ties))


# ---------------------------------------------------------------------------------------------------------------
# By hand


def test_by_hand() -> None:
    """Qrels a:2, b:1, c:0; ranking c, a, x (x unjudged); RBP with p = 1/2 (exposures 1, 1/2, 1/4).
    Target (incomplete: a and b): a first, 1; b second, 1/2. ε = {c: 1, a: 1/2, x: 1/4}."""
    qrels, run = {"q": {"a": 2, "b": 1, "c": 0}}, {"q": {"c": 3.0, "a": 2.0, "x": 1.0}}
    values = rankwise.evaluate(qrels, run, ["EE-L(browse=rbp)", "EE-D(browse=rbp)", "EE-R(browse=rbp)"]).aggregate
    assert close(values["EE-D(browse=rbp)"], 1 + 1 / 4 + 1 / 16)
    assert close(values["EE-R(browse=rbp)"], 1 / 2 * 1)
    assert close(values["EE-L(browse=rbp)"], 1 + (1 / 2 - 1) ** 2 + (0 - 1 / 2) ** 2 + 1 / 16)
    # gERR, u = 1/2: c 1, a 1/2 (no relevant above), x 1/4 · 1/2 (a above); target a 1, b (p(1 − u)) = 1/4
    gerr = rankwise.evaluate(qrels, run, ["EE-R", "EE-D"]).aggregate
    assert close(gerr["EE-R"], 1 / 2 * 1) and close(gerr["EE-D"], 1 + 1 / 4 + 1 / 64)
    # ties=average on c and a tied: each at rank 1 or 2 with equal chance: rbp ε_c = ε_a = 3/4
    tied = rankwise.evaluate(qrels, {"q": {"c": 2.0, "a": 2.0, "x": 1.0}}, ["EE-D(browse=rbp)"], ties="average")
    assert close(tied.aggregate["EE-D(browse=rbp)"], 2 * (3 / 4) ** 2 + 1 / 16)
    # real grades a 0.7, b 0.5, c 0, complete judgments with rel=0: three grades, targets 1, 1/2, 1/4 (not truncated
    # to integers); ranking b, a, x: ε = {b: 1, a: 1/2, x: 1/4}
    real = rankwise.evaluate({"q": {"a": 0.7, "b": 0.5, "c": 0.0}}, {"q": {"b": 3.0, "a": 2.0, "x": 1.0}},
                             ["EE-L(rel=0,browse=rbp,judgments=complete)", "EE-R(rel=0,browse=rbp,judgments=complete)"],
                             grades="real").aggregate  # fmt: skip
    assert close(real["EE-R(rel=0,browse=rbp,judgments=complete)"], 1 / 2 * 1 + 1 * 1 / 2)
    assert close(real["EE-L(rel=0,browse=rbp,judgments=complete)"], 1 / 4 + 1 / 4 + 1 / 16 + 1 / 16)


# ---------------------------------------------------------------------------------------------------------------
# Per query: query ranges, a streamed file and Spark's chunks give the whole evaluation's values

EE_MEASURES = ["EE-L", "EE-D(browse=rbp,p=0.8)", "EE-R(judgments=complete,normalise=yes)@5",
               "EE-L(browse=rbp,grades=binary,normalise=yes)@3"]  # fmt: skip


def _frames(seed: int) -> tuple[pl.DataFrame, pl.DataFrame]:
    """40 users, 12 items each ranked with scores in 0..5 (ties), grades 0..2 on a random half of the items."""
    rng = np.random.default_rng(seed)
    users = np.repeat([f"u{i}" for i in range(40)], 12)
    items = np.tile([f"i{j}" for j in range(12)], 40)
    run = pl.DataFrame({"user_id": users, "item_id": items, "score": rng.integers(0, 6, len(users)).astype(float)})
    judged = rng.random(len(users)) < 0.5
    qrels = pl.DataFrame({"user_id": users[judged], "item_id": items[judged],
                          "rating": rng.integers(0, 3, int(judged.sum()))})  # fmt: skip
    return qrels, run


def test_query_ranges_and_a_stream_equal_the_whole(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    qrels, run = _frames(1)
    for ties in (None, "average"):
        whole = rankwise.evaluate(qrels, run, EE_MEASURES, ties=ties)
        path = tmp_path / "run.txt"
        run.select("user_id", pl.lit("Q0").alias("q0"), "item_id", pl.lit(0).alias("rank"), "score",
                   pl.lit("r").alias("tag")).write_csv(
            path, separator=" ", include_header=False)  # fmt: skip
        monkeypatch.setattr(partitioned, "PARTITION_ROWS", 37)
        for parts in (rankwise.evaluate(qrels, run, EE_MEASURES, ties=ties),
                      rankwise.evaluate(qrels, str(path), EE_MEASURES, ties=ties, stream=True)):  # fmt: skip
            assert parts.query_ids == whole.query_ids
            assert np.allclose(parts.values, whole.values, equal_nan=True, rtol=0, atol=1e-12)
        monkeypatch.undo()
    assert not np.isnan(whole.values).all()


@pytest.mark.parametrize("partitions", [1, 3])
def test_spark_chunks_equal_the_local_engine(spark: object, partitions: int) -> None:
    from spark_checks import on_both_engines

    qrels, run = _frames(2)
    on_both_engines(spark, qrels, run, EE_MEASURES, partitions)


# ---------------------------------------------------------------------------------------------------------------
# The expeval dialect: its names, normalised by default, over the queries of the qrels

EXPEVAL_DEFAULTS = {"browse": "gerr", "p": 0.5, "u": 0.5, "judgments": "incomplete", "grades": "graded",
                    "normalise": "yes", "k": None}  # fmt: skip


@settings(max_examples=60, deadline=None)
@given(case=cases(ties=False))
def test_expeval_dialect(case: tuple[Qrels, Run]) -> None:
    qrels, run = case
    result = rankwise.evaluate(qrels, run, ["difference", "disparity", "relevance"], dialect="expeval")
    ours = {q: (v["difference"], v["disparity"], v["relevance"]) for q, v in result.per_query.items()}
    _compare(ours, _pinned(qrels, run, EXPEVAL_DEFAULTS, ties=False))
    assert str(result.measures[0]) == "EE-L(normalise=yes)"


# ---------------------------------------------------------------------------------------------------------------
# Sampled rankings (samples=): several rankings per query, each document's exposure averaged over them


@st.composite
def sampled(draw: Any) -> tuple[Qrels, Orders]:
    """Qrels as :func:`cases`; each query 1-4 samples (or none), each a random order of a random subset of its
    documents (a document in some samples only)."""
    qrels, _ = draw(cases(ties=False))
    orders: Orders = {}
    for q in qrels:
        if q != "q0" and draw(st.booleans()):
            continue
        docs = [f"d{i}" for i in range(7)]
        orders[q] = [draw(st.permutations(docs))[: draw(st.integers(1, 7))] for _ in range(draw(st.integers(1, 4)))]
    return qrels, orders


def _ours_sampled(tmp: Path, qrels: Qrels, orders: Orders, options: dict[str, Any]
                  ) -> dict[str, tuple[float, float, float]]:  # fmt: skip
    """rankwise.evaluate(samples=True) on the samples written as expeval reads them."""
    write_samples(tmp / "samples", orders)
    params = ",".join(f"{k}={v}" for k, v in options.items() if k != "k")
    cut = "" if options["k"] is None else f"@{options['k']}"
    names = [f"EE-L({params}){cut}", f"EE-D({params}){cut}", f"EE-R({params}){cut}"]
    per_query = rankwise.evaluate(qrels, str(tmp / "samples"), names, samples=True, queries="qrels").per_query
    return {q: tuple(per_query[q][n] for n in names) for q in per_query}  # type: ignore[misc]


def _cut(orders: Orders, k: int | None) -> Orders:
    return {q: [order[:k] for order in samples] for q, samples in orders.items()}


@pytest.mark.skipif(not EXPEVAL, reason="RANKWISE_EXPEVAL (a checkout of github.com/diazf/expeval) is not set")
@settings(max_examples=100, deadline=None)
@given(case=sampled(), options=OPTIONS)
def test_sampled_rankings_against_expeval(tmp_path_factory: pytest.TempPathFactory, case: tuple[Qrels, Orders],
                                          options: dict[str, Any]) -> None:  # fmt: skip
    qrels, orders = case
    theirs = run_expeval_on(tmp_path_factory.mktemp("expeval"), qrels, _cut(orders, options["k"]), options)
    _compare(_ours_sampled(tmp_path_factory.mktemp("ours"), qrels, orders, options), theirs)


@settings(max_examples=150, deadline=None)
@given(case=sampled(), options=OPTIONS)
def test_sampled_rankings_pinned(tmp_path_factory: pytest.TempPathFactory, case: tuple[Qrels, Orders],
                                 options: dict[str, Any]) -> None:  # fmt: skip
    qrels, orders = case
    expected = pinned_values(qrels, _cut(orders, options["k"]), options)
    _compare(_ours_sampled(tmp_path_factory.mktemp("ours"), qrels, orders, options), expected)


def test_sampled_rankings_by_hand(tmp_path: Path) -> None:
    """Qrels a:1; samples (a, b) and (b, a); RBP p = 1/2: ε_a = ε_b = (1 + 1/2) / 2 = 3/4, as ``ties=average`` gives
    for a and b tied; EE-R is linear in ε, so it is the samples' mean; EE-D is not (‖mean ε‖² ≠ mean ‖ε‖²)."""
    qrels = {"q": {"a": 1}}
    write_samples(tmp_path / "run", {"q": [["a", "b"], ["b", "a"]]})
    names = ["EE-D(browse=rbp)", "EE-R(browse=rbp)"]
    values = rankwise.evaluate(qrels, str(tmp_path / "run"), names, samples=True).aggregate
    assert close(values["EE-D(browse=rbp)"], 2 * (3 / 4) ** 2) and close(values["EE-R(browse=rbp)"], 3 / 4)
    tied = rankwise.evaluate(qrels, {"q": {"a": 1.0, "b": 1.0}}, names, ties="average").aggregate
    assert values == pytest.approx(tied, rel=1e-12)
    each = [rankwise.evaluate(qrels, {"q": {d: -r for r, d in enumerate(o)}}, names).aggregate
            for o in (["a", "b"], ["b", "a"])]  # fmt: skip
    assert close(values["EE-R(browse=rbp)"], (each[0]["EE-R(browse=rbp)"] + each[1]["EE-R(browse=rbp)"]) / 2)
    assert not close(values["EE-D(browse=rbp)"], (each[0]["EE-D(browse=rbp)"] + each[1]["EE-D(browse=rbp)"]) / 2)


def test_sampled_rankings_from_a_table_and_over_groups(tmp_path: Path) -> None:
    """A DataFrame's sample column (rows ordered by score as ever) gives the file's values, over documents and over
    item groups."""
    qrels = {"q1": {"a": 2, "b": 1, "c": 0}, "q2": {"x": 1, "y": 1}}
    orders = {"q1": [["a", "b", "c"], ["c", "a"], ["b", "d", "a"]], "q2": [["y", "x"]]}
    write_samples(tmp_path / "run", orders)
    rows = [(q, f"s{n}", d, -float(r)) for q, samples in orders.items() for n, order in enumerate(samples)
            for r, d in enumerate(order, 1)]  # fmt: skip
    table = pl.DataFrame(rows, schema=["query_id", "draw", "doc_id", "score"], orient="row")
    names = [*(f"EE-{x}" for x in "LDR"), *(f"EE-{x}(over=groups)" for x in "LDR")]
    groups = {"a": "g1", "b": "g2", "c": "g1", "x": "g1", "y": "g2"}
    from_file = rankwise.evaluate(qrels, str(tmp_path / "run"), names, samples=True, item_groups=groups)
    from_table = rankwise.evaluate(qrels, table, names, samples="draw", item_groups=groups)
    assert np.array_equal(from_file.values, from_table.values, equal_nan=True)
    assert not np.isnan(from_file.values).any()


def test_sampled_rankings_bad_input(tmp_path: Path) -> None:
    qrels = {"q": {"a": 1}}
    (tmp_path / "run").write_text("q s1 a 1 0 x\nq s1 b 2 0 x\nq s1 a 3 0 x\n")
    with pytest.raises(rankwise.InputError, match=r"run:3: doc a repeated in sample 's1' of query 'q'"):
        rankwise.evaluate(qrels, str(tmp_path / "run"), ["EE-L"], samples=True)
    (tmp_path / "run").write_text("q s1 a 1 0 x\nq s1 b first 0 x\n")
    with pytest.raises(rankwise.InputError, match=r"run:2: rank 'first' is not a whole number >= 1"):
        rankwise.evaluate(qrels, str(tmp_path / "run"), ["EE-L"], samples=True)
    (tmp_path / "run").write_text("q s1 a 1\n")
    with pytest.raises(rankwise.InputError,
                       match=r"run:1: expected at least 5 columns \(query sample doc rank score \[tag\]\), found 4"):
        rankwise.evaluate(qrels, str(tmp_path / "run"), ["EE-L"], samples=True)
    with pytest.raises(rankwise.MeasureError, match=r"^nDCG: only the expected-exposure measures"):
        rankwise.evaluate(qrels, str(tmp_path / "run"), ["EE-L", "nDCG"], samples=True)
    with pytest.raises(rankwise.InputError, match=r"no sample column 'draw'"):
        rankwise.evaluate(qrels, pl.DataFrame({"query_id": ["q"], "doc_id": ["a"], "score": [1.0]}), ["EE-L"],
                          samples="draw")  # fmt: skip
    with pytest.raises(rankwise.InputError, match=r"^run: query 'q sample 1' holds ' sample ', which rankwise puts"):
        rankwise.evaluate(qrels, pl.DataFrame({"query_id": ["q sample 1"], "doc_id": ["a"], "score": [1.0],
                                               "draw": ["s"]}), ["EE-L"], samples="draw")  # fmt: skip


def test_sampled_rankings_from_user_columns_and_files(tmp_path: Path) -> None:
    """A table whose columns are named as recommendation lists are (user_id, item_id) gives the same values and note
    as the TREC file, read from a DataFrame, a CSV or a parquet file; the TREC file may be gzipped and hold comments
    and fields after the tag, as any run file."""
    import gzip

    qrels = {"q1": {"a": 2, "b": 1, "c": 0}, "q2": {"x": 1, "y": 1}}
    orders = {"q1": [["a", "b", "c"], ["c", "a"]], "q2": [["y", "x"]]}
    write_samples(tmp_path / "run", orders)
    lines = (tmp_path / "run").read_text().splitlines()
    (tmp_path / "run.gz").write_bytes(gzip.compress(("# sampled\n" + "".join(f"{x} more\n" for x in lines)).encode()))
    rows = [(q, f"s{n}", d, -float(r)) for q, samples in orders.items() for n, order in enumerate(samples)
            for r, d in enumerate(order, 1)]  # fmt: skip
    table = pl.DataFrame(rows, schema=["user_id", "draw", "item_id", "score"], orient="row")
    table.write_csv(tmp_path / "run.csv")
    table.write_parquet(tmp_path / "run.parquet")
    names = ["EE-L", "EE-D(browse=rbp)", "EE-R"]
    expected = rankwise.evaluate(qrels, str(tmp_path / "run"), names, samples=True)
    assert "run: sampled rankings: 3 samples of 2 queries (1 to 2 per query)" in " ".join(expected.notes())
    for run, samples in ((str(tmp_path / "run.gz"), True), (table, "draw"), (str(tmp_path / "run.csv"), "draw"),
                         (str(tmp_path / "run.parquet"), "draw")):  # fmt: skip
        got = rankwise.evaluate(qrels, run, names, samples=samples)
        assert np.array_equal(got.values, expected.values, equal_nan=True), run
        assert got.notes() == expected.notes(), run
