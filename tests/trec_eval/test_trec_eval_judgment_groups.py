"""Judgment groups: ``rankwise trec_eval -R qrels_jg`` with ``map_avgjg``, ``P_avgjg`` and ``Rprec_mult_avgjg``
(``-m qrels_jg``): each measure computed on each group's judgments and averaged over the query's groups.

- By hand: two groups judging one query differently, with and without ``-J`` (which condenses each group's ranking
  to what that group judged).
- Without the binary: a file with one group per query is ordinary qrels, so map_avgjg, P_avgjg_k and
  Rprec_mult_avgjg_x equal trec_eval's map, P_k and Rprec_mult_x (proven against pytrec_eval elsewhere), and two
  identical groups change nothing.
- Against the trec_eval 10 binary (``$TREC_EVAL``; skipped without it): random judgment groups under ``-c``, ``-l``,
  ``-M``, ``-J`` and cutoff parameters, byte for byte.
- Bad files: one line naming the file and line (exit 2).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from test_all_trec import trec_eval_lines, write_case
from test_trec_eval_cli import rankwise_trec_eval
from test_trec_eval_differential import make_case

from rankwise.io import load_run
from rankwise.measures import parse_measure
from rankwise.trec_eval.judgment_groups import group_averages, load_judgment_groups

TREC_EVAL = os.environ.get("TREC_EVAL") or shutil.which("trec_eval")
needs_binary = pytest.mark.skipif(TREC_EVAL is None, reason="no trec_eval binary ($TREC_EVAL or trec_eval on PATH)")

# q: group u1 judges a 1, b 0, c 1; group u2 judges b 1, e 0. r: one group. Ranked q: a, b, d; r: y, x.
GROUPS = "q u1 a 1\nq u1 b 0\nq u1 c 1\nq u2 b 1\nq u2 e 0\nr u1 x 1\n"
RUN = "q Q0 a 1 3 t\nq Q0 b 2 2 t\nq Q0 d 3 1 t\nr Q0 y 1 1 t\nr Q0 x 2 0.5 t\n"


def _files(tmp_path: Path, groups: str = GROUPS, run: str = RUN) -> tuple[str, str]:
    (tmp_path / "groups.txt").write_text(groups)
    (tmp_path / "run.txt").write_text(run)
    return str(tmp_path / "groups.txt"), str(tmp_path / "run.txt")


def test_worked_example(tmp_path):
    files = _files(tmp_path)
    got = trec_eval_lines("-q", "-m", "qrels_jg", "-m", "P_avgjg.1,2,5", "-m", "Rprec_mult_avgjg.0.5,1,2", "-R",
                          "qrels_jg", *files)  # fmt: skip
    # q/u1: a (relevant) at 1, c not retrieved: AP 1/2, P@1 1, P@2 1/2; R = 2: Rprec_mult 0.5 → P@1, 1 → P@2,
    # 2 → c = 4 > 3 retrieved: 1/4. q/u2: b at 2: AP 1/2, P@1 0, P@2 1/2; R = 1: c = 1, 1, 2 → 0, 0, 1/2.
    expected = {"map_avgjg": (0.5 + 0.5) / 2, "P_avgjg_1": (1 + 0) / 2, "P_avgjg_2": 0.5, "P_avgjg_5": 0.2,
                "Rprec_mult_avgjg_0.50": (1 + 0) / 2, "Rprec_mult_avgjg_1.00": (0.5 + 0) / 2,
                "Rprec_mult_avgjg_2.00": (0.25 + 0.5) / 2}  # fmt: skip
    for name, value in expected.items():
        assert got[(name, "q")] == f"{value:6.4f}", name
    assert got[("map_avgjg", "r")] == "0.5000" and got[("map_avgjg", "all")] == "0.5000"
    assert got[("num_q", "all")] == "2" and got[("runid", "all")] == "t"
    names = [name for name, qid in got if qid == "q"]
    assert names == ["map_avgjg", "P_avgjg_1", "P_avgjg_2", "P_avgjg_5", *(f"Rprec_mult_avgjg_{x}" for x in
                                                                         ("0.50", "1.00", "2.00"))]  # fmt: skip


def test_judged_only_condenses_each_group(tmp_path):
    """-J: u1 keeps a, b (d unjudged); u2 keeps only b, now first: AP 1, P@1 1. r keeps x alone: AP 1."""
    got = trec_eval_lines("-q", "-J", "-m", "map_avgjg", "-m", "P_avgjg.1", "-R", "qrels_jg", *_files(tmp_path))
    assert got[("map_avgjg", "q")] == f"{(0.5 + 1) / 2:6.4f}" and got[("P_avgjg_1", "q")] == "1.0000"
    assert got[("map_avgjg", "r")] == "1.0000" and got[("map_avgjg", "all")] == f"{(0.75 + 1) / 2:6.4f}"


def test_through_the_api(tmp_path):
    groups_path, run_path = _files(tmp_path)
    measures = [parse_measure("AP"), parse_measure("P@1")]
    values = group_averages(load_judgment_groups(groups_path), load_run(run_path), measures, ("q", "r"),
                            {"depth": None, "rel_level": 1, "queries": None})  # fmt: skip
    assert values[measures[0]].tolist() == [0.5, 0.5] and values[measures[1]].tolist() == [0.5, 0.0]


@pytest.mark.parametrize("seed", range(30))
def test_one_group_is_ordinary_qrels(seed, tmp_path):
    """With one group per query (twice the same group, too) the averaged measures are trec_eval's own."""
    qrels, run = make_case(seed)
    qrels = {q: docs for q, docs in qrels.items() if q in run}
    files = write_case(tmp_path, qrels, run)
    plain = trec_eval_lines("-q", "-m", "map", "-m", "P.1,5,20", "-m", "Rprec_mult.0.4,1,1.8", *files)
    once = "".join(f"{q} g {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items())
    twice = once + once.replace(" g ", " h ")
    for text in (once, twice):
        groups_path, run_path = _files(tmp_path, text, Path(files[1]).read_text())
        averaged = trec_eval_lines("-q", "-m", "map_avgjg", "-m", "P_avgjg.1,5,20", "-m",
                                   "Rprec_mult_avgjg.0.4,1,1.8", "-R", "qrels_jg", groups_path, run_path)  # fmt: skip
        for (name, qid), value in plain.items():
            if name not in ("runid", "num_q"):
                root = name.split("_")[0] if name.startswith(("map", "P_")) else "Rprec_mult"
                assert averaged[(f"{root}_avgjg" + name[len(root) :], qid)] == value, (seed, name, qid)


@pytest.mark.parametrize(
    ("groups", "message"),
    [
        ("q u a 1\nq u a 2\n", r"groups\.txt:2: query 'q' doc 'a' is judged twice in judgment group 'u' "
                               r"\(first at .*groups\.txt:1\)"),
        ("q u a 1\nq u b 1\nq u c 1\nq u b 2\nq u a 0\n", r"groups\.txt:4: query 'q' doc 'b' is judged twice in "
                                                     r"judgment group 'u' \(first at .*groups\.txt:2\)"),
        ("q u a 1\nq u b 1.5\n", r"groups\.txt:2: grade '1\.5' is not an integer"),
        ("q u a 1\nq u b 1 x\n", r"groups\.txt:2: expected 4 columns \(query_id jg doc_id grade\), found 5"),
        ("", r"groups\.txt: file is empty"),
    ],
)  # fmt: skip
def test_bad_files_are_one_line_and_status_2(groups, message, tmp_path):
    code, out, err = rankwise_trec_eval("-m", "qrels_jg", "-R", "qrels_jg", *_files(tmp_path, groups))
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert re.search(message, err), err


def test_measures_need_their_judgments(tmp_path):
    code, _, err = rankwise_trec_eval("-R", "qrels_jg", *_files(tmp_path))
    assert code == 2 and "-m num_ret (no -m: trec_eval's official measures) cannot be computed from -R qrels_jg" in err
    code, _, err = rankwise_trec_eval("-m", "map_avgjg", *_files(tmp_path, "q 0 a 1\n"))
    assert code == 2 and "-m map_avgjg cannot be computed from -R qrels judgments" in err


@needs_binary
@pytest.mark.parametrize("seed", range(60))
def test_random_groups_byte_for_byte(seed, tmp_path):
    """Random cases of ``test_trec_eval_differential`` split into 1-3 groups per query, each judging a share of the
    documents, sometimes with another grade (negative ones too)."""
    rng = np.random.default_rng(seed + 1000)
    qrels, run = make_case(seed)
    lines = []
    for q, docs in qrels.items():
        groups = int(rng.integers(1, 4))
        for d, grade in docs.items():
            for g in range(groups):
                if g == 0 or rng.random() < 0.7:
                    lines.append(f"{q} u{g} {d} {grade if rng.random() < 0.6 else int(rng.integers(-1, 4))}\n")
    ranked = "".join(f"{q} Q0 {d} 0 {s!r} tag\n" for q, docs in run.items() for d, s in docs.items())
    files = _files(tmp_path, "".join(lines[i] for i in rng.permutation(len(lines))), ranked)
    for options in (["-q", "-c"], ["-q", "-c", "-l2"], ["-q", "-c", "-M5"], ["-q", "-c", "-J"],
                    ["-q", "-c", "-J", "-M3", "-mP_avgjg.1,2,30", "-mRprec_mult_avgjg.0.5,1,3"]):  # fmt: skip
        args = [*options, "-m", "qrels_jg", "-R", "qrels_jg", *files]
        reference = subprocess.run([TREC_EVAL, *args], capture_output=True, text=True, check=True).stdout
        code, out, err = rankwise_trec_eval(*args)
        assert code == 0 and out == reference, (options, err)
