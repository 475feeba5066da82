"""Differential tests: rankwise against trec_eval, through pytrec_eval (pytrec-eval-terrier).

Every trec_eval measure rankwise computes is compared per query and in aggregate on ~200 seeded random cases:
grades 0-3 and negative, heavy score ties, queries missing on either side, runs shorter than the cutoffs (and
some longer than 100), queries without relevant documents, cutoffs beyond the run length, relevance levels 1
and 2 (and 3 for every fourth case), doc ids whose byte order differs from their numeric order. The depth cut
(-M) and the query policies (-c) are compared too.

Notes on the reference:

- pytrec_eval gives per-query values only. Its aggregate is computed here as trec_eval's: the mean over its
  queries, the sum for the counts (num_q, num_ret, num_rel, num_rel_ret) and, for gm_map (reported per query
  as log(max(AP, 1e-5))), the exp of the mean of those logs. rankwise's per-query GMAP value is AP itself.
- pytrec_eval stores scores as float32, so every score here is float32-representable (ties are the same).
- pytrec_eval's iprec_at_recall uses trec_eval 9's recall rounding: it is compared with ``IPrec(round=v9)@x``.
- A qrels query whose grades are all negative makes pytrec_eval hang or corrupt memory: every judged query
  generated here has at least one grade >= 0.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import rankwise
from conftest import close

pytrec_eval = pytest.importorskip("pytrec_eval")

N_CASES = 200
CUTOFFS = (1, 2, 3, 5, 10, 15, 20, 30, 50, 100, 200, 500, 1000)
SUCCESS_CUTOFFS = (1, 2, 3, 5, 10, 50)
RECALL_LEVELS = tuple(i / 10 for i in range(11))
COUNTS = frozenset({"num_q", "num_ret", "num_rel", "num_rel_ret"})
MIN_GEO_MEAN = 1e-5


def _cuts(values: tuple[int, ...]) -> str:
    return ",".join(str(v) for v in values)


PYTREC_MEASURES = {
    "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank",
    "iprec_at_recall", "ndcg", "set_F", "set_recall",
    f"P.{_cuts(CUTOFFS)}", f"recall.{_cuts(CUTOFFS)}", f"ndcg_cut.{_cuts(CUTOFFS)}",
    f"map_cut.{_cuts(CUTOFFS)}", f"success.{_cuts(SUCCESS_CUTOFFS)}",
}  # fmt: skip

# rankwise asks for the same measures by trec_eval name (sets expand to trec output names) ...
RANKWISE_MEASURES = [
    "official",
    f"P.{_cuts(CUTOFFS)}",
    f"recall.{_cuts(CUTOFFS)}",
    "ndcg",
    f"ndcg_cut.{_cuts(CUTOFFS)}",
    f"map_cut.{_cuts(CUTOFFS)}",
    f"success.{_cuts(SUCCESS_CUTOFFS)}",
    "F1",  # uncut F1 = trec_eval set_F (beta 1)
    "R",  # uncut recall = trec_eval set_recall
    *(f"IPrec(round=v9)@{x:g}" for x in RECALL_LEVELS),
]
# ... except for these pytrec_eval output names, which have another rankwise key.
KEY_FOR = {
    "set_F": "F1",
    "set_recall": "R",
    **{f"iprec_at_recall_{x:.2f}": f"IPrec(round=v9)@{x:g}" for x in RECALL_LEVELS},
}

# The same trec_eval measures at relevance level 2, asked from a rankwise evaluation at rel_level=1 through
# each measure's own ``rel`` parameter: pytrec_eval name -> rankwise measure string.
REL2_MEASURES = {
    "P_5": "P(rel=2)@5",
    "P_1": "P(rel=2)@1",
    "recall_10": "R(rel=2)@10",
    "map": "AP(rel=2)",
    "map_cut_5": "AP(rel=2)@5",
    "recip_rank": "RR(rel=2)",
    "Rprec": "Rprec(rel=2)",
    "bpref": "bpref(rel=2)",
    "success_3": "HitRate(rel=2)@3",
    "num_rel": "NumRel(rel=2)",
    "num_rel_ret": "NumRelRet(rel=2)",
    "iprec_at_recall_0.50": "IPrec(rel=2,round=v9)@0.5",
    "set_F": "F1(rel=2)",
}


def _doc_pool(rng: np.random.Generator, n: int) -> list[str]:
    """n distinct doc ids in mixed styles, so byte order differs from numeric order (d10 < d9, D1 < d1)."""
    styles = ("d{}", "D{}", "{}", "doc-{:02d}", "x{}y")
    return [styles[int(rng.integers(len(styles)))].format(i) for i in range(n)]


def _scores(rng: np.random.Generator, n: int) -> list[float]:
    """float32-representable scores; half the cases have heavy ties (multiples of 1/4 in [0, 1])."""
    kind = rng.random()
    if kind < 0.4:
        raw = rng.integers(0, 5, n) / 4.0
    elif kind < 0.5:
        raw = np.full(n, 1.5)  # every score tied
    elif kind < 0.6:
        raw = rng.integers(-3, 3, n) * 2.0  # negative scores, ties
    else:
        raw = rng.random(n)
    return [float(np.float32(s)) for s in raw]


def make_case(seed: int) -> tuple[dict, dict]:
    """A random (qrels, run) pair; query q0 is always in both so the intersection is never empty."""
    rng = np.random.default_rng(seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(int(rng.integers(1, 8))):
        qid = f"q{q}"
        # mostly short pools; some long enough that cutoffs 100 and 200 fall inside the run
        docs = _doc_pool(rng, int(rng.integers(1, 30) if rng.random() < 0.9 else rng.integers(100, 320)))
        if q == 0 or rng.random() < 0.85:
            # 15%: no relevant document at all
            grade_pool = [-1, 0, 0] if rng.random() < 0.15 else [-2, -1, 0, 0, 1, 1, 2, 3]
            judged = {d: int(rng.choice(grade_pool)) for d in docs if rng.random() < 0.6}
            # at least one grade >= 0 per judged query (pytrec_eval bug with all-negative queries)
            judged[docs[0]] = max(0, judged.get(docs[0], 0))
            qrels[qid] = judged
        if q == 0 or rng.random() < 0.85:
            # short runs are common: often fewer documents than the smaller cutoffs
            n = int(rng.integers(1, len(docs) + 1))
            chosen = [str(d) for d in rng.choice(docs, n, replace=False)]
            run[qid] = dict(zip(chosen, _scores(rng, n)))
    return qrels, run


def _aggregate_reference(per_query: dict[str, dict[str, float]], key: str) -> float:
    """trec_eval's 'all' value of ``key`` from pytrec_eval's per-query values."""
    values = [vals[key] for vals in per_query.values()]
    if key in COUNTS:
        return float(sum(values))
    if key == "gm_map":
        return math.exp(sum(values) / len(values))  # pytrec_eval's per-query gm_map is already the log
    return sum(values) / len(values)


def _compare(result: rankwise.EvaluationResult, ref: dict[str, dict[str, float]], key_for=None) -> list[str]:
    """Mismatches between a rankwise result and pytrec_eval's per-query output (and its aggregate)."""
    key_for = KEY_FOR if key_for is None else key_for
    mismatches = []
    pq = result.per_query
    names = next(iter(ref.values())).keys()
    for qid, vals in ref.items():
        for name, expected in vals.items():
            key = key_for.get(name, name)
            got = pq[qid][key]
            if name == "gm_map":
                got = math.log(max(got, MIN_GEO_MEAN))
            if not close(got, expected):
                mismatches.append(f"query {qid} {name} ({key}): rankwise {got!r} != trec_eval {expected!r}")
    for name in names:
        key = key_for.get(name, name)
        expected = _aggregate_reference(ref, name)
        got = result.aggregate[key]
        if not close(got, expected):
            mismatches.append(f"aggregate {name} ({key}): rankwise {got!r} != trec_eval {expected!r}")
    return mismatches


def _pytrec(qrels: dict, run: dict, level: int, measures=PYTREC_MEASURES) -> dict:
    return pytrec_eval.RelevanceEvaluator(qrels, set(measures), relevance_level=level).evaluate(run)


def _trec_order(docs: dict[str, float]) -> list[str]:
    """trec_eval's ranking: score descending, then doc id descending (strcmp)."""
    return [d for d, _ in sorted(docs.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)]


def test_generator_covers_the_intended_situations():
    """The random cases really contain what the module docstring promises."""
    seen = dict.fromkeys(
        ["negative grade", "grade 3", "tied scores", "qrels-only query", "run-only query", "no relevant",
         "run shorter than 5", "run longer than 100", "unjudged retrieved", "judged not retrieved"], 0)  # fmt: skip
    for seed in range(N_CASES):
        qrels, run = make_case(seed)
        grades = [g for docs in qrels.values() for g in docs.values()]
        seen["negative grade"] += any(g < 0 for g in grades)
        seen["grade 3"] += 3 in grades
        seen["tied scores"] += any(len(set(d.values())) < len(d) for d in run.values())
        seen["qrels-only query"] += bool(set(qrels) - set(run))
        seen["run-only query"] += bool(set(run) - set(qrels))
        seen["no relevant"] += any(max(d.values()) < 1 for d in qrels.values())
        seen["run shorter than 5"] += any(len(d) < 5 for d in run.values())
        seen["run longer than 100"] += any(len(d) > 100 for d in run.values())
        seen["unjudged retrieved"] += any(set(run[q]) - set(qrels.get(q, {})) for q in run)
        seen["judged not retrieved"] += any(set(qrels[q]) - set(run[q]) for q in qrels if q in run)
    assert all(count >= 10 for count in seen.values()), seen


@pytest.mark.parametrize("seed", range(N_CASES))
def test_matches_trec_eval(seed):
    qrels, run = make_case(seed)
    for level in (1, 2, 3) if seed % 4 == 0 else (1, 2):
        ref = _pytrec(qrels, run, level)
        result = rankwise.evaluate(qrels, run, RANKWISE_MEASURES, rel_level=level)
        assert set(result.query_ids) == set(ref) == set(qrels) & set(run)
        assert result.aggregate["num_q"] == len(ref)
        mismatches = _compare(result, ref)
        assert not mismatches, f"seed {seed}, rel_level {level}:\n" + "\n".join(mismatches[:20])


@pytest.mark.parametrize("seed", range(0, N_CASES, 4))
def test_measure_rel_parameter_matches_trec_eval_level_2(seed):
    """``P(rel=2)@5`` at rel_level=1 equals trec_eval's P_5 at -l 2 (and so on for every rel measure)."""
    qrels, run = make_case(seed)
    trec_measures = {"P.1,5", "recall.10", "map", "map_cut.5", "recip_rank", "Rprec", "bpref", "success.3",
                     "num_rel", "num_rel_ret", "iprec_at_recall", "set_F"}  # fmt: skip
    ref = _pytrec(qrels, run, 2, trec_measures)
    ref = {qid: {k: v for k, v in vals.items() if k in REL2_MEASURES} for qid, vals in ref.items()}
    result = rankwise.evaluate(qrels, run, list(REL2_MEASURES.values()), rel_level=1)
    mismatches = _compare(result, ref, REL2_MEASURES)
    assert not mismatches, f"seed {seed}:\n" + "\n".join(mismatches[:20])


@pytest.mark.parametrize("seed", range(1, N_CASES, 4))
def test_depth_matches_trec_eval_on_truncated_run(seed):
    """depth=d (trec_eval -M d) equals trec_eval on the run cut to its top d documents in trec_eval order."""
    qrels, run = make_case(seed)
    depth = int(np.random.default_rng(seed).choice([1, 2, 3, 5, 8]))
    cut = {q: {d: docs[d] for d in _trec_order(docs)[:depth]} for q, docs in run.items()}
    ref = _pytrec(qrels, cut, 1)
    result = rankwise.evaluate(qrels, run, RANKWISE_MEASURES, depth=depth)
    mismatches = _compare(result, ref)
    assert not mismatches, f"seed {seed}, depth {depth}:\n" + "\n".join(mismatches[:20])
    evaluated = set(qrels) & set(run)
    assert result.accounting.truncated_rows == sum(max(0, len(run[q]) - depth) for q in evaluated)


@pytest.mark.parametrize("policy", ["qrels", "run"])
@pytest.mark.parametrize("seed", range(2, N_CASES, 5))
def test_query_policies_match_trec_eval_with_missing_queries_scored_zero(seed, policy):
    """queries='qrels' (trec_eval -c) and 'run': the extra queries score 0 and count in every mean.

    trec_eval -c evaluates a judged query missing from the run as an empty ranking; a run query without
    judgments has no relevant documents. Either way every measure is 0 there except the counts (num_q 1,
    num_ret its run length, num_rel its R), and gm_map takes log(1e-5).
    """
    qrels, run = make_case(seed)
    level = 1 + seed % 2
    ref = _pytrec(qrels, run, level)
    names = list(next(iter(ref.values())).keys())
    extra = sorted((set(qrels) - set(run)) if policy == "qrels" else (set(run) - set(qrels)))
    for qid in extra:
        ref[qid] = dict.fromkeys(names, 0.0)
        ref[qid]["gm_map"] = math.log(MIN_GEO_MEAN)
        ref[qid]["num_q"] = 1.0
        ref[qid]["num_ret"] = float(len(run.get(qid, {})))
        ref[qid]["num_rel"] = float(sum(g >= level for g in qrels.get(qid, {}).values()))
    result = rankwise.evaluate(qrels, run, RANKWISE_MEASURES, rel_level=level, queries=policy)
    assert set(result.query_ids) == set(ref) == set(qrels if policy == "qrels" else run)
    mismatches = _compare(result, ref)
    assert not mismatches, f"seed {seed}, queries={policy}:\n" + "\n".join(mismatches[:20])
    if policy == "qrels":
        assert result.accounting.scored_empty == tuple(extra)
        assert result.accounting.qrels_only == ()
    else:
        assert result.accounting.unjudged_evaluated == tuple(extra)
        assert result.accounting.run_only == ()


def test_all_trec_measures_are_covered():
    """Every trec_eval measure family rankwise knows by a trec name is in the differential comparison."""
    from rankwise.measures.trec_names import ALL_TREC, CUTOFF_FAMILIES, OFFICIAL, PLAIN_MEASURES

    qrels, run = make_case(0)
    ref = _pytrec(qrels, run, 1)
    compared = set(next(iter(ref.values())))
    elsewhere = set(ALL_TREC) - set(OFFICIAL) - {"ndcg", "recall", "ndcg_cut", "map_cut", "success", "set_F",
                                                  "set_recall"}  # every all_trec measure, in test_all_trec
    elsewhere |= {"dcg", "ideal_dcg", "yaap"}  # not in all_trec: in test_trec_eval_gain_measures
    for name in PLAIN_MEASURES:
        assert name in compared or name in elsewhere, name
    for family in CUTOFF_FAMILIES:
        assert any(k.startswith(family + "_") for k in compared) or family in elsewhere, family
    # 12 plain measures (with set_F, set_recall), 11 recall levels, 4 families at every cutoff, success
    assert len(compared) == 12 + len(RECALL_LEVELS) + 4 * len(CUTOFFS) + len(SUCCESS_CUTOFFS)


@pytest.mark.parametrize("seed", range(3, N_CASES, 4))
def test_judged_only_matches_trec_eval_J(seed):
    """judged_only=True (trec_eval -J: unjudged and negatively graded documents removed before scoring, the
    condensed lists of Sakai 2007) equals pytrec_eval's judged_docs_only_flag, every measure per query; with a
    depth cut, trec_eval cuts first (-M then -J)."""
    qrels, run = make_case(seed)
    ref = pytrec_eval.RelevanceEvaluator(qrels, set(PYTREC_MEASURES), relevance_level=1,
                                         judged_docs_only_flag=True).evaluate(run)  # fmt: skip
    result = rankwise.evaluate(qrels, run, RANKWISE_MEASURES, judged_only=True)
    mismatches = _compare(result, _emptied_scores_zero(ref, result))
    assert not mismatches, f"seed {seed}:\n" + "\n".join(mismatches[:20])
    evaluated = set(qrels) & set(run)
    judged = {q: {d for d, g in qrels[q].items() if g >= 0} for q in evaluated}
    assert result.accounting.removed_unjudged == sum(len(set(run[q]) - judged[q]) for q in evaluated)
    depth = 3
    cut = {q: {d: docs[d] for d in _trec_order(docs)[:depth]} for q, docs in run.items()}
    ref = pytrec_eval.RelevanceEvaluator(qrels, set(PYTREC_MEASURES), relevance_level=1,
                                         judged_docs_only_flag=True).evaluate(cut)  # fmt: skip
    result = rankwise.evaluate(qrels, run, RANKWISE_MEASURES, judged_only=True, depth=depth)
    mismatches = _compare(result, _emptied_scores_zero(ref, result))
    assert not mismatches, f"seed {seed}, depth {depth}:\n" + "\n".join(mismatches[:20])


def _emptied_scores_zero(ref: dict, result: rankwise.EvaluationResult) -> dict:
    """pytrec_eval's values with one trec_eval artefact replaced: a ranking that -J leaves empty gets
    iprec_at_recall_0.00 NaN (0/0 in m_iprec_at_recall.c; the binary prints -nan); rankwise scores an empty
    ranking's interpolated precision 0, as for every other measure."""
    out = {}
    for q, values in ref.items():
        emptied = result.per_query[q]["num_ret"] == 0
        if emptied:
            assert math.isnan(values["iprec_at_recall_0.00"]), values
        out[q] = {k: 0.0 if emptied and math.isnan(v) and k.startswith("iprec_at_recall") else v
                  for k, v in values.items()}  # fmt: skip
    return out
