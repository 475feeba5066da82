"""Expected exposure over item groups (EE-L, EE-D, EE-R with ``over=groups``): expeval's group mode, ``-G``.

expeval (github.com/diazf/expeval at 69ab070) reads a document's groups from the second field of the qrels
(data.py:18-29, ``|``-separated; a three-field line puts it in group -1), sums the target exposure and the run's
expected exposure of T's documents per group (group.py:7-16, called at expeval.py:47-59 and 79-85) and compares the
two group vectors with its group metrics and their bounds (group.py:18-23, metrics.py:147-229). Here a document's
group is its label in ``item_groups=``; a document in no group is written to expeval's qrels in group -1.

- ``test_against_expeval``: expeval's own code called as ``expeval.main`` calls it in group mode, on random qrels,
  runs and item groups under every option (ties as every order of the tied documents, cutoffs as each sample cut
  at k); skipped without ``RANKWISE_EXPEVAL`` (a checkout of expeval).
- ``test_pinned_formulas``: expeval's group-mode formulas transcribed from its source (cited by file:line) on the
  same random cases, present without expeval.
- ``test_by_hand``: a four-document query with two item groups and a document in none, worked out by hand.
- ``test_singleton_groups_are_documents``: every document in its own group, with the run limited to T's documents
  (the only ones expeval's group sums count), gives the values of the document mode.
"""

from __future__ import annotations

import importlib
import math
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from test_exposure import (
    EXPEVAL,
    OPTIONS,
    Qrels,
    Run,
    _compare,
    _pinned_target,
    _samples,
    _series,
    cases,
    pinned_queries,
    read_expeval_files,
)

import rankwise
from conftest import close

Groups = dict[str, str]
NAMES = ("EE-L", "EE-D", "EE-R")


@st.composite
def grouped_cases(draw: Any, ties: bool) -> tuple[Qrels, Run, Groups]:
    """The random cases of test_exposure, each document d0..d6 in group 0, 1 or 2 or in none (at least one in a
    group)."""
    qrels, run = draw(cases(ties))
    labels = draw(st.lists(st.sampled_from(["0", "1", "2", None]), min_size=7, max_size=7))
    groups = {f"d{i}": label for i, label in enumerate(labels) if label is not None}
    return qrels, run, groups or {"d0": "0"}


CASES = st.one_of(grouped_cases(ties=False).map(lambda c: (c, False)),
                  grouped_cases(ties=True).map(lambda c: (c, True)))  # fmt: skip


def _ours(qrels: Qrels, run: Run, groups: Groups, options: dict[str, Any], ties: bool, over: str = "groups"
          ) -> dict[str, tuple[float, float, float]]:  # fmt: skip
    params = ",".join([f"{k}={v}" for k, v in options.items() if k != "k"] + [f"over={over}"])
    cut = "" if options["k"] is None else f"@{options['k']}"
    names = [f"{name}({params}){cut}" for name in NAMES]
    result = rankwise.evaluate(qrels, run, names, ties="average" if ties else None, queries="qrels",
                               item_groups=groups if over == "groups" else None)  # fmt: skip
    return {q: (v[names[0]], v[names[1]], v[names[2]]) for q, v in result.per_query.items()}


# ---------------------------------------------------------------------------------------------------------------
# expeval's own code


def _run_expeval(tmp: Path, qrels: Qrels, run: Run, groups: Groups, options: dict[str, Any], ties: bool
                 ) -> dict[str, tuple[float, float, float]]:  # fmt: skip
    """expeval.main's steps with -G (expeval.py:29-116) on the case written to files: (difference, disparity,
    relevance) per query."""
    (tmp / "qrels").write_text("".join(f"{q} {groups.get(d, '-1')} {d} {g}\n"
                                       for q, docs in qrels.items() for d, g in docs.items()))  # fmt: skip
    samples = {q: _samples(run, q, ties, options["k"]) for q in run}
    (tmp / "run").write_text("".join(f"{q} s{n} {d} {r} 0 x\n" for q, orders in samples.items()
                                     for n, order in enumerate(orders) for r, d in enumerate(order, 1)))  # fmt: skip
    with _expeval() as (data, exposure, group):
        um, p, u, complete, normalize, (qrels_read, did2gids), permutations = read_expeval_files(data, tmp, options)
        out = {}
        for qid, judged in qrels_read.items():
            target, _, _, _ = exposure.target(judged, um, p, u, complete)
            target = group.exposure(target, did2gids[qid], judged, complete)
            relevant = sum(1 for v in judged.values() if v > 0)
            disparity, relevance, difference = group.metrics(target, um, p, u, len(judged), relevant)
            if qid not in permutations:  # expeval.py:100-102; EE-L: ‖ε*‖² (expeval: relevance's upper bound, 0)
                disparity.value, relevance.value = disparity.upperBound, relevance.lowerBound
                difference.compute({})
            else:
                expected = exposure.expected(permutations[qid], judged, um, p, u)
                expected = group.exposure(expected, did2gids[qid], judged, complete)
                for metric in (disparity, relevance, difference):
                    metric.compute(expected)
                if disparity.value == math.inf and not any(expected.values()):
                    disparity.value = 0.0  # util.py:13-14: l2 of an all-zero vector is inf; rankwise gives Σ 0² = 0
            if um == "rbp" and disparity.lowerBound:  # metrics.py:182, 190 with pp = p: one bound, e·e·k and
                disparity.lowerBound = disparity.upperBound  # k·e·e rounded apart; rankwise gives the default
            out[qid] = (difference.float(normalize), disparity.float(normalize), relevance.float(normalize))
        return out


@contextmanager
def _expeval() -> Iterator[tuple[Any, Any, Any]]:
    """expeval's modules data, exposure and group, imported from the checkout RANKWISE_EXPEVAL names (they import
    each other by bare name), and forgotten afterwards."""
    sys.path.insert(0, str(EXPEVAL))
    try:
        yield tuple(importlib.import_module(name) for name in ("data", "exposure", "group"))
    finally:
        sys.path.remove(str(EXPEVAL))
        for name in ("data", "exposure", "group", "metrics", "util", "permutation"):
            sys.modules.pop(name, None)


@pytest.mark.skipif(not EXPEVAL, reason="RANKWISE_EXPEVAL (a checkout of github.com/diazf/expeval) is not set")
@settings(max_examples=150, deadline=None)
@given(case=CASES, options=OPTIONS)
def test_against_expeval(tmp_path_factory: pytest.TempPathFactory, case: tuple[tuple[Qrels, Run, Groups], bool],
                         options: dict[str, Any]) -> None:  # fmt: skip
    (qrels, run, groups), ties = case
    theirs = _run_expeval(tmp_path_factory.mktemp("expeval"), qrels, run, groups, options, ties)
    _compare(_ours(qrels, run, groups, options, ties), theirs)


# ---------------------------------------------------------------------------------------------------------------
# expeval's group-mode formulas, transcribed


def _pinned(qrels: Qrels, run: Run, groups: Groups, options: dict[str, Any], ties: bool
            ) -> dict[str, tuple[float, float, float]]:  # fmt: skip
    """Per query: the group sums of group.py:7-16, the values of metrics.py:165-166, 193-194, 228-229 and the bounds
    of metrics.py:147-226 (k = the groups of T, r = the relevant documents, group.py:18-23, expeval.py:52-55)."""
    um, p, u = options["browse"], options["p"], options["u"]
    out = {}
    for q, judged, e in pinned_queries(qrels, run, options, ties):
        doc_target = _pinned_target(judged, um, p, u)
        target: dict[str, float] = {}
        exposed: dict[str, float] = {}
        for d in judged:  # group.py:9-15: every document of T, in its group or in group -1
            g = groups.get(d, "-1")
            target[g] = target.get(g, 0.0) + doc_target[d]
            exposed[g] = exposed.get(g, 0.0) + e.get(d, 0.0)
        k, r, pp = len(target), sum(1 for g in judged.values() if g > 0), (p if um == "rbp" else p * u)
        mass = _series(p, r)  # metrics.py:181, 206
        d_hi, d_lo = (0.0, 0.0) if k == 1 else (k * mass**2, k * _series(pp, r) ** 2)  # metrics.py:174-191
        norm2 = sum(v * v for v in target.values())
        l_hi = max(norm2, sum((mass - v) ** 2 for v in target.values()))  # metrics.py:210-222
        difference = sum((exposed[g] - target[g]) ** 2 for g in target)
        disparity, relevance = sum(v * v for v in exposed.values()), sum(exposed[g] * target[g] for g in target)
        if q not in run:  # expeval.py:100-101
            disparity = d_hi
        raw = [(difference, 0.0, l_hi, 0.0), (disparity, d_lo, d_hi, 0.0), (relevance, 0.0, 0.0, 1.0)]
        scaled = [v if options["normalise"] == "no" else (default if lo == hi else (v - lo) / (hi - lo))
                  for v, lo, hi, default in raw]  # fmt: skip  # metrics.py:13-20
        out[q] = (scaled[0], scaled[1], scaled[2])
    return out


@settings(max_examples=200, deadline=None)
@given(case=CASES, options=OPTIONS)
def test_pinned_formulas(case: tuple[tuple[Qrels, Run, Groups], bool], options: dict[str, Any]) -> None:
    (qrels, run, groups), ties = case
    _compare(_ours(qrels, run, groups, options, ties), _pinned(qrels, run, groups, options, ties))


# ---------------------------------------------------------------------------------------------------------------
# By hand


def test_by_hand() -> None:
    """Qrels a:2, b:1, c:0, d:1; ranking c, b, a, e (e unjudged); groups a, c → g1, b → g2, d in none; gERR with
    p = u = 1/2. ε: c 1, b 1/2, a 1/4 · 1/2 (b above), e ignored (not in T). T = {a, b, d}, p(1 − u) = 1/4: a 1,
    b and d (1/4 − 1/64) / (2 · 3/4) = 5/32 each. Groups of T: g1 = {a} (c is not in T), g2 = {b}, none = {d}:
    ε = (1/8, 1/2, 0), ε* = (1, 5/32, 5/32)."""
    qrels = {"q": {"a": 2, "b": 1, "c": 0, "d": 1}}
    run = {"q": {"c": 4.0, "b": 3.0, "a": 2.0, "e": 1.0}}
    groups = {"a": "g1", "c": "g1", "b": "g2"}
    names = ["EE-L(over=groups)", "EE-D(over=groups)", "EE-R(over=groups)", "EE-D(over=groups,normalise=yes)",
             "EE-R(over=groups,normalise=yes)"]  # fmt: skip
    values = rankwise.evaluate(qrels, run, names, item_groups=groups).aggregate
    assert close(values["EE-D(over=groups)"], 1 / 64 + 1 / 4)
    assert close(values["EE-R(over=groups)"], 1 / 8 * 1 + 1 / 2 * 5 / 32)
    assert close(values["EE-L(over=groups)"], (1 / 8 - 1) ** 2 + (1 / 2 - 5 / 32) ** 2 + (5 / 32) ** 2)
    # normalise=yes: k = 3 groups, R = 3 relevant; hi = 3 (1 + 1/2 + 1/4)², lo = 3 (1 + 1/4 + 1/16)² (q' = p u)
    hi, lo = 3 * (7 / 4) ** 2, 3 * (21 / 16) ** 2
    assert close(values["EE-D(over=groups,normalise=yes)"], (1 / 64 + 1 / 4 - lo) / (hi - lo))
    assert close(values["EE-R(over=groups,normalise=yes)"], 1.0)  # expeval's group relevance bounds are both 0
    # ties=average: c and b tied at the top (rbp): each 3/4 on average; only b counts (g2)
    tied = rankwise.evaluate(qrels, {"q": {"c": 3.0, "b": 3.0, "a": 2.0}}, ["EE-D(browse=rbp,over=groups)@2"],
                             ties="average", item_groups=groups).aggregate  # fmt: skip
    assert close(tied["EE-D(browse=rbp,over=groups)@2"], (3 / 4) ** 2)  # a at rank 3 is past the cutoff


def test_needs_item_groups() -> None:
    with pytest.raises(rankwise.MeasureError, match="needs item groups"):
        rankwise.evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, ["EE-L(over=groups)"])


# ---------------------------------------------------------------------------------------------------------------
# Every document its own group: the document mode


@settings(max_examples=100, deadline=None)
@given(case=CASES, options=OPTIONS)
def test_singleton_groups_are_documents(case: tuple[tuple[Qrels, Run, Groups], bool], options: dict[str, Any]
                                        ) -> None:  # fmt: skip
    (qrels, run, _), ties = case
    options = {**options, "normalise": "no"}  # the bounds differ: expeval's group bounds are not its document ones
    complete = options["judgments"] == "complete"
    in_t = {q: {d for d, g in docs.items() if complete or g > 0} for q, docs in qrels.items()}
    limited = {q: {d: s for d, s in ranking.items() if d in in_t[q]} for q, ranking in run.items()}
    ranked = {q: r for q, r in limited.items() if r}
    assume(ranked)  # a run of no document of T: nothing to compare
    singletons = {f"d{i}": f"g{i}" for i in range(7)}
    by_group = _ours(qrels, ranked, singletons, options, ties)
    by_document = _ours(qrels, ranked, singletons, options, ties, over="documents")
    assert by_group.keys() == by_document.keys()
    for q in ranked:
        assert all(close(a, b, rel_tol=1e-9, abs_tol=1e-12) for a, b in zip(by_group[q], by_document[q], strict=True)
                   ), (q, by_group[q], by_document[q])  # fmt: skip
