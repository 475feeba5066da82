"""Preference judgments: ``rankwise trec_eval -R prefs`` and ``-R qrels_prefs`` with trec_eval's ``prefs_*``
measures (``-m all_prefs``, ``-m prefs``).

- By hand: trec_eval's own documented examples (a JG of one sub-group establishing 13 preferences; a JG of two
  sub-groups whose transitive closure adds 1 > 4), with a second JG that contradicts the first (so prefs_pair shares
  a pair half and half), every measure worked out from the five counts ful_ret, ful_imp, poss_ret, poss_imp,
  notoccur and the relevant / non-relevant counts (prefs_avgjg_Rnonrel's R − N correction).
- Without the binary, against other rankwise measures: on qrels read as preferences (one JG of one sub-group, grades
  0/1), prefs_num_prefs_poss is R·N and prefs_simp_ret is the ROC AUC of the retrieved judged documents ordered by
  rank (``AUC(compare=rank,unjudged=skip)`` with doc-id-ascending ties, the order form_prefs_counts.c breaks ties in).
- Against the trec_eval 10 binary (``$TREC_EVAL``; skipped without it): random preference files with EC and
  transitive JGs, repeated lines, fractional levels, score ties and queries missing from the run, under ``-q``,
  ``-c`` and ``-M``, byte for byte; and trec_eval's own test files when ``$TREC_EVAL`` sits in its source tree.
- Bad files: one line naming the file and line (exit 2).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from test_all_trec import trec_eval_lines
from test_trec_eval_cli import rankwise_trec_eval

import rankwise
from conftest import close
from rankwise.io import load_run
from rankwise.trec_eval.prefs import evaluate_preferences, load_preferences

TREC_EVAL = os.environ.get("TREC_EVAL") or shutil.which("trec_eval")
needs_binary = pytest.mark.skipif(TREC_EVAL is None, reason="no trec_eval binary ($TREC_EVAL or trec_eval on PATH)")

# qid1/ujg1: trec_eval's "13 preferences" example; qid1/ujg2 prefers docno1 to docno4 (ujg1 the reverse);
# qid2/ujg1: two sub-groups, 1>2, 1>3, 2>3 and 2>4, closed with 1>4.
PREFS = """qid1 ujg1 sub1 docno1 3.0
qid1 ujg1 sub1 docno2 2.0
qid1 ujg1 sub1 docno3 0.0
qid1 ujg1 sub1 docno4 6.0
qid1 ujg1 sub1 docno5 0.0
qid1 ujg1 sub1 docno6 2.0
qid1 ujg2 sub1 docno1 1
qid1 ujg2 sub1 docno4 0
# a comment line
qid2 ujg1 sub1 docno1 3.0
qid2 ujg1 sub1 docno2 2.0
qid2 ujg1 sub1 docno3 1.0
qid2 ujg1 sub2 docno2 5.0
qid2 ujg1 sub2 docno4 4.0
"""
# qid1 numbers the judged retrieved documents docno4 0, docno2 1, docno1 2, docno3 3 (NJR 4; x is unjudged), then
# the unretrieved docno5 4, docno6 5. qid2: docno4 0, docno1 1, docno2 2 (NJR 3), docno3 3.
RUN = """qid1 Q0 docno4 1 5 t
qid1 Q0 docno2 2 4 t
qid1 Q0 x 3 3 t
qid1 Q0 docno1 4 2 t
qid1 Q0 docno3 5 1 t
qid2 Q0 docno4 1 3 t
qid2 Q0 docno1 2 2 t
qid2 Q0 docno2 3 1 t
"""
# qid1/ujg1: d4 > d1, d2, d3 (ful_ret), d6, d5 (ful_imp); d1 > d2 (unfulfilled, retrieved), d3 (ful_ret), d6, d5
# (ful_imp); d2 > d3 (ful_ret), d5 (ful_imp); d6 > d3 (unfulfilled, implied), d5 (neither retrieved):
# ful_ret 5, ful_imp 5, poss_ret 6, poss_imp 6, notoccur 1. ujg2: d1 (2) > d4 (0): poss_ret 1.
# qid2: 1>2 ful_ret; 1>3, 2>3 ful_imp; 2>4, 1>4 unfulfilled: ful_ret 1, ful_imp 2, poss_ret 3, poss_imp 2.
BY_HAND = {
    "qid1": {
        "prefs_num_prefs_poss": 14, "prefs_num_prefs_ful": 10, "prefs_num_prefs_ful_ret": 5,
        "prefs_simp": 10 / 14, "prefs_simp_ret": 5 / 7, "prefs_simp_imp": 10 / 13,
        "prefs_avgjg": (10 / 13 + 0) / 2, "prefs_avgjg_ret": (5 / 6 + 0) / 2, "prefs_avgjg_imp": (10 / 12 + 0) / 2,
        # pairs: 6 of retrieved documents (d4-d1 shared 1/2 by the two JGs, d1-d2 lost), 6 with one retrieved (d6-d3
        # lost), 1 of unretrieved ones (d6-d5)
        "prefs_pair": (4.5 + 5) / 13, "prefs_pair_ret": 4.5 / 6, "prefs_pair_imp": (4.5 + 5) / 12,
        # ujg1: R = 4 relevant lines (3 retrieved), N = 2: (10 + 3·2) / (13 + 4·2); over the retrieved R = 3, N = 1:
        # (5 + 3·2) / (6 + 4·2). ujg2: R = N = 1: 0 / 1
        "prefs_avgjg_Rnonrel": (16 / 21 + 0) / 2, "prefs_avgjg_Rnonrel_ret": (11 / 14 + 0) / 2,
    },
    "qid2": {
        "prefs_num_prefs_poss": 5, "prefs_num_prefs_ful": 3, "prefs_num_prefs_ful_ret": 1,
        "prefs_simp": 3 / 5, "prefs_simp_ret": 1 / 3, "prefs_simp_imp": 3 / 5,
        "prefs_avgjg": 3 / 5, "prefs_avgjg_ret": 1 / 3, "prefs_avgjg_imp": 3 / 5,
        "prefs_pair": 3 / 5, "prefs_pair_ret": 1 / 3, "prefs_pair_imp": 3 / 5,
        # all four relevant (3 retrieved), none non-relevant: (3 + 3·4) / (5 + 4·4); retrieved: (1 + 3·3) / (3 + 4·3)
        "prefs_avgjg_Rnonrel": 15 / 21, "prefs_avgjg_Rnonrel_ret": 10 / 15,
    },
}  # fmt: skip
COUNTS = ("prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret")


def _files(tmp_path: Path, prefs: str = PREFS, run: str = RUN) -> tuple[str, str]:
    (tmp_path / "prefs.txt").write_text(prefs)
    (tmp_path / "run.txt").write_text(run)
    return str(tmp_path / "prefs.txt"), str(tmp_path / "run.txt")


def test_worked_examples_through_the_api(tmp_path):
    prefs_path, run_path = _files(tmp_path)
    values = evaluate_preferences(load_preferences(prefs_path), load_run(run_path), ["qid1", "qid2"])
    for j, qid in enumerate(("qid1", "qid2")):
        for name, expected in BY_HAND[qid].items():
            assert close(values[name][j], expected), (qid, name, values[name][j], expected)


def test_worked_examples_through_the_cli(tmp_path):
    got = trec_eval_lines("-q", "-m", "all_prefs", "-R", "prefs", *_files(tmp_path))
    for qid, values in BY_HAND.items():
        for name, expected in values.items():
            assert got[(name, qid)] == (str(expected) if name in COUNTS else f"{expected:6.4f}")
    assert got[("prefs_num_prefs_poss", "all")] == "19"  # counts sum over queries
    assert got[("prefs_simp", "all")] == f"{(10 / 14 + 3 / 5) / 2:6.4f}"  # the others average
    assert got[("runid", "all")] == "t" and got[("num_q", "all")] == "2"
    official = trec_eval_lines("-m", "prefs", "-R", "prefs", *_files(tmp_path))
    assert [name for name, _ in official] == ["runid", "num_q", *list(BY_HAND["qid1"])[:3], "prefs_simp",
                                              "prefs_pair", "prefs_avgjg"]  # fmt: skip


def test_depth_cut_and_missing_queries(tmp_path):
    """-M 2 keeps docno4 and docno2 of qid1 (x was third); -c scores qid3 of the judgments, not in the run, with
    nothing retrieved: every preference is possible, none fulfilled."""
    prefs = PREFS + "qid3 g s a 1\nqid3 g s b 0\n"
    got = trec_eval_lines("-q", "-c", "-M2", "-m", "prefs_num_prefs_ful_ret", "-m", "prefs_simp", "-R", "prefs",
                          *_files(tmp_path, prefs))  # fmt: skip
    # qid1 ujg1 with NJR 2 (d4 0, d2 1; then d1 2, d3 3, d5 4, d6 5): ful_ret d4 > d2 only
    assert got[("prefs_num_prefs_ful_ret", "qid1")] == "1"
    assert got[("prefs_num_prefs_ful_ret", "qid3")] == "0" and got[("prefs_simp", "qid3")] == "0.0000"


def test_qrels_read_as_preferences(tmp_path):
    """-R qrels_prefs: a qrels file, its iteration column the JG, each JG one sub-group."""
    qrels = "q 0 a 1\nq 0 b 0\nq 0 c 2\nq 1 a 0\nq 1 b 1\n"
    run = "q Q0 b 1 3 t\nq Q0 a 2 2 t\nq Q0 c 3 1 t\n"
    got = trec_eval_lines("-q", "-m", "all_prefs", "-R", "qrels_prefs", *_files(tmp_path, qrels, run))
    # JG 0: c > a > b, numbers b 0, a 1, c 2: a > b lost, c > a lost, c > b lost; JG 1: b > a fulfilled
    assert got[("prefs_num_prefs_poss", "q")] == "4" and got[("prefs_num_prefs_ful", "q")] == "1"
    assert got[("prefs_avgjg", "q")] == f"{(0 + 1) / 2:6.4f}"
    assert got[("prefs_pair", "q")] == f"{(0.5 + 0 + 0) / 3:6.4f}"  # a-b: 1 of 2 JGs; a-c, b-c lost


@pytest.mark.parametrize("seed", range(25))
def test_binary_qrels_against_auc(seed, tmp_path):
    """One JG of grades 0/1: the preferences are the (relevant, non-relevant) pairs, so prefs_num_prefs_poss = R·N
    and prefs_simp_ret is the AUC of the retrieved judged documents by rank (ties by doc id ascending)."""
    rng = np.random.default_rng(seed)
    qrels = {f"q{q}": {f"d{i}": int(rng.random() < 0.3) for i in range(int(rng.integers(2, 40)))} for q in range(4)}
    run = {q: {d: float(rng.integers(0, 5)) for d in docs if rng.random() < 0.7} | {"u": 9.0}
           for q, docs in qrels.items()}  # fmt: skip
    lines = "".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items())
    ranked = "".join(f"{q} Q0 {d} 0 {s} t\n" for q, docs in run.items() for d, s in docs.items())
    prefs_path, run_path = _files(tmp_path, lines, ranked)
    values = evaluate_preferences(load_preferences(prefs_path, "qrels_prefs"), load_run(run_path), sorted(qrels))
    auc = rankwise.evaluate(qrels, run, ["AUC(compare=rank,unjudged=skip)"], ties="docno_asc")
    for j, q in enumerate(sorted(qrels)):
        grades = list(qrels[q].values())
        assert values["prefs_num_prefs_poss"][j] == sum(grades) * (len(grades) - sum(grades))
        expected = auc.per_query[q]["AUC(compare=rank,unjudged=skip)"]
        assert close(values["prefs_simp_ret"][j], 0.0 if np.isnan(expected) else expected), (seed, q)


@pytest.mark.parametrize(
    ("prefs", "message"),
    [
        ("q g s a 2\nq g s b 1\nq g s a 1\n", r"prefs\.txt:3: query 'q' judgment group 'g': document 'a' has two "
                                              r"rel_levels in one judgment sub-group"),
        ("q g s a 2\nq g s b 1\nq g t b 2\nq g t a 1\n", r"query 'q' judgment group 'g': document '[ab]' and document "
                                                         r"'[ab]' are each preferred to the other"),
        ("q g s a 2\nq g s b 0\nq g t b 2\nq g t c 1\n", r"prefs\.txt:3: .*document 'b' has rel_level 0 in one "
                                                         r"judgment sub-group and above 0 in another"),
        ("q g s a 1\nq g s b high\n", r"prefs\.txt:2: rel_level 'high' is not a finite number"),
        ("q g s a 1\nq g b 0\n", r"prefs\.txt:2: expected 5 columns \(query_id jg jsg doc_id rel_level\), found 4"),
        ("# nothing\n", r"prefs\.txt: no preference judgments"),
    ],
)  # fmt: skip
def test_bad_preferences_are_one_line_and_status_2(prefs, message, tmp_path):
    code, out, err = rankwise_trec_eval("-m", "all_prefs", "-R", "prefs", *_files(tmp_path, prefs, "q Q0 a 1 1 t\n"))
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert __import__("re").search(message, err), err


def test_measures_need_their_judgments(tmp_path):
    code, _, err = rankwise_trec_eval("-m", "map", "-R", "prefs", *_files(tmp_path))
    assert code == 2 and "-m map cannot be computed from -R prefs judgments" in err
    code, _, err = rankwise_trec_eval("-m", "prefs_simp", *_files(tmp_path, "q 0 a 1\n", "q Q0 a 1 1 t\n"))
    assert code == 2 and "-m prefs_simp cannot be computed from -R qrels judgments" in err


# ------------------------------------------------------------------------------------------ against trec_eval 10
def _scores(rng: np.random.Generator, n: int) -> list[float]:
    raw = rng.integers(0, 4, n) / 4.0 if rng.random() < 0.5 else rng.random(n)
    return [float(np.float32(s)) for s in raw]


def make_prefs_case(seed: int, one_subgroup: bool) -> tuple[list[tuple], dict]:
    """Random preferences: per query 1-3 JGs, each of one sub-group (levels mostly 0-3, some fractional, a line now
    and then twice) or, unless ``one_subgroup``, of 2-3 sub-groups consistent with one hidden order (levels that fall
    with it, 0 for the JG's non-relevant documents) so their closure has no cycle; runs with ties and unjudged
    documents, some judged queries not run."""
    rng = np.random.default_rng(seed)
    lines: list[tuple] = []
    run: dict[str, dict[str, float]] = {}
    for q in range(int(rng.integers(1, 5))):
        qid = f"q{q}"
        pool = [f"d{int(i)}" for i in rng.choice(60, size=int(rng.integers(2, 30)), replace=False)]
        for g in range(int(rng.integers(1, 4))):
            docs = [str(d) for d in rng.choice(pool, size=int(rng.integers(1, len(pool) + 1)), replace=False)]
            if one_subgroup or rng.random() < 0.5 or len(docs) < 2:
                levels = [0, 0, 0, 1, 1, 2, 3] if rng.random() < 0.7 else [0, 0.5, 1.25, 2]
                for d in docs:
                    level = levels[int(rng.integers(len(levels)))]
                    lines += [(qid, f"g{g}", "0", d, level)] * (2 if rng.random() < 0.05 else 1)
                continue
            order = [str(d) for d in rng.permutation(docs)]  # the hidden order, best first
            relevant = int(rng.integers(0, len(order) + 1))
            for s in range(int(rng.integers(2, 4))):
                step = int(rng.integers(1, 4))
                for pos, d in enumerate(order):
                    level = 0.0 if pos >= relevant else 1.0 + (len(order) - pos) // step
                    if rng.random() < 0.6:
                        lines.append((qid, f"g{g}", f"s{s}", d, level))
        if q == 0 or rng.random() < 0.8:
            ranked = [d for d in pool if rng.random() < 0.6] + [f"u{i}" for i in range(int(rng.integers(0, 6)))]
            run[qid] = dict(zip(ranked, _scores(rng, len(ranked)))) or {"u0": 1.0}
    return [lines[i] for i in rng.permutation(len(lines))], run


@needs_binary
@pytest.mark.parametrize("seed", range(60))
@pytest.mark.parametrize("rel_format", ["prefs", "qrels_prefs"])
def test_random_preferences_byte_for_byte(seed, rel_format, tmp_path):
    lines, run = make_prefs_case(seed, one_subgroup=rel_format == "qrels_prefs")
    if rel_format == "prefs":
        text = "".join(f"{q} {g} {s} {d} {level}\n" for q, g, s, d, level in lines)
    else:
        text = "".join(f"{q} {g} {d} {level}\n" for q, g, s, d, level in lines)
    ranked = "".join(f"{q} Q0 {d} 0 {s!r} tag\n" for q, docs in run.items() for d, s in docs.items())
    files = _files(tmp_path, text, ranked)
    for options in (["-q", "-c"], ["-q", "-c", "-M3"], ["-q", "-c", "-J", "-l2", "-m", "prefs"], ["-q"]):
        args = [*options, "-m", "all_prefs", "-R", rel_format, *files]
        reference = subprocess.run([TREC_EVAL, *args], capture_output=True, text=True)
        if "not found in qrels" in reference.stderr:
            continue  # trec_eval 10 exits on a judged query missing from the run (without -c): rankwise evaluates
        assert reference.returncode == 0, reference.stderr
        code, out, err = rankwise_trec_eval(*args)
        assert code == 0 and out == reference.stdout, (options, err)


TREC_EVAL_TESTS = Path(TREC_EVAL).resolve().parent / "test" if TREC_EVAL else None


@needs_binary
@pytest.mark.skipif(
    TREC_EVAL_TESTS is None or not (TREC_EVAL_TESTS / "prefs.test").exists(),
    reason="no trec_eval binary, or none in a trec_eval source tree (test/prefs.test beside it)",
)
@pytest.mark.parametrize(
    "args",
    [["-m", "all_prefs", "-q", "-R", "prefs", "prefs.test", "prefs.results.test"],
     ["-m", "all_prefs", "-q", "-R", "qrels_prefs", "qrels.test", "results.test"]],
)  # fmt: skip
def test_trec_evals_own_test_files(args):
    """trec_eval's quicktest files (test/prefs.test: JGs of one and of several sub-groups, transitive closures)."""
    assert TREC_EVAL_TESTS is not None
    full = [str(TREC_EVAL_TESTS / a) if a.endswith(".test") else a for a in args]
    reference = subprocess.run([TREC_EVAL, *full], capture_output=True, text=True, check=True).stdout
    code, out, err = rankwise_trec_eval(*full)
    assert code == 0 and out == reference, err
