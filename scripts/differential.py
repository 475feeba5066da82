"""Differential check of rankwise: dump every observable output to a JSON-lines file, and diff two dumps.

A refactor that moves modules must not change any output. ``dump`` runs a fixed, seeded set of cases through the
public API and the command line and writes one line per case, ``{"case": NAME, "output": ...}``; ``diff`` compares
two dumps case by case and exits with status 1 when any case differs (or is missing from one side).

What is dumped (floats as ``repr`` strings, so equal dumps mean bit-identical values; an exception is an output
too: its type, message and which of rankwise's public error classes it is):

- ``meta/...``: every dialect of ``rankwise.dialects.DIALECTS`` (its data, version resolution, the binding of common
  measures), every family of ``rankwise.measures.FAMILIES`` (its data), ``parse_measure``/``parse_measures`` on
  every family name and alias, every parameter value, trec_eval names and bad names.
- ``api/dialect/...``: every dialect × two random data sets with heavy score ties (2-decimal scores): IR-style
  graded qrels with negative grades, and recommendation-style ratings read with ``threshold=4`` (with ``train=``,
  ``catalog=``, item features and a baseline run) × every tie policy × every query policy, plus depth, judged_only,
  rel_level, float32 scores, cutoffs and version strings. Each measure of the set (the usual ones, the
  beyond-accuracy ones on the ratings, and every family the dialect binds) is also evaluated alone.
- ``api/family/...``: every family with each parameter value (one measure string per value), evaluated alone on
  both data sets.
- ``api/input/...``: the same data as dicts, polars, pandas, pyarrow, TREC text, gzip, CSV, TSV, parquet, column
  names, streamed or not, real-valued grades; ``load_qrels``/``load_run``; bad inputs and bad options.
- ``api/ml100k/...``: MovieLens 100K (``../shared/data/ml-100k``; skipped when absent), a per-user time split (each
  user's last 20 % held out), a popularity top-20 per user (heavy score ties) against the held-out ratings
  (``threshold=4``), under every dialect: accuracy measures and each beyond-accuracy measure with
  ``train=``/``catalog=``/``features=``/``baseline=`` (Serendipity, slow on co-occurrences, only under the dialects
  that bind it or average it over their own queries, and the default); ``compare_dialects``.
- ``api/compare/...``: ``rankwise.compare`` on three random runs with every test, corrections, intervals, all pairs,
  missing queries dropped, and on the bundled example; ``rankwise.compare_dialects``.
- ``cli/...``: ``python -m rankwise`` as a subprocess (stdout, stderr, exit status, files it writes): ``evaluate``
  on the bundled example in every format with many options, recommendation tables, ``measures``, ``explain`` for
  every family (some under a dialect), ``dialects``, ``compare`` in several formats, ``trec_eval`` on 30 random
  cases under many option sets plus ``-R qrels_jg``, ``-R prefs``, ``-R qrels_prefs`` and ``-Z``, ``ltr`` (qrels,
  a tiny LightGBM/PyTorch training, predict, evaluate, relabel), ``recsys-experiment``, ``--help`` texts, ``-V``, bad
  input. Run with COLUMNS=120, no terminal, PYTHONHASHSEED=0.

Only the public API (``rankwise.evaluate``, ``compare``, ``compare_dialects``, ``load_qrels``, ``load_run``,
``parse_measure(s)``, ``get_dialect``, ``dialects.DIALECTS``, ``measures.FAMILIES``, the result objects' public
attributes) and the command line are used, never rankwise's internals. Spark is not covered. Temporary paths are
replaced by ``<TMP>`` and the shared data folder by ``<DATA>``.

How to run, from the repository root. A dump takes about 6 CPU-minutes (half of it the ~520 command-line
processes, run two at a time beside the API cases): 3-4 minutes on an idle 2-core machine, much longer on a loaded
one. It writes ~7,250 cases (~45 MB).

    # the tree before the change: a worktree of the old commit with its C extension built in place
    PYTHONPATH=/path/to/old/src python scripts/differential.py dump --require-prefix /path/to/old/src before.jsonl
    # the tree after the change (the installed, e.g. editable, rankwise)
    python scripts/differential.py dump after.jsonl
    python scripts/differential.py diff before.jsonl after.jsonl    # exit status 1 when anything differs

``dump --only PREFIX`` dumps only the cases whose name starts with PREFIX (e.g. ``cli/trec_eval``, ``api/ml100k``),
``--jobs N`` sets how many command-line processes run at once (default: the number of CPUs), ``--require-prefix DIR``
refuses to run unless rankwise is imported from under DIR (the command line is checked to import the same copy).
``diff --detail N`` shows the first N differing cases in detail (default 10).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import contextlib
import dataclasses
import difflib
import enum
import gzip
import hashlib
import io
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
TIES = (None, "docno_desc", "docno_asc", "docno_desc_numeric", "input_order", "average")
QUERIES = (None, "intersection", "qrels", "run", "relevant", "common_relevant")
IR_MEASURES = ("nDCG@10", "nDCG", "AP@10", "AP", "P@5", "R@10", "RR", "RR@10", "HitRate@10", "bpref", "Rprec",
               "F1@10", "AUC", "MeanRank", "NumRet", "NumRel", "NumRelRet", "IPrec@0.5", "GMAP", "DCG@10", "ERR@10",
               "RBP", "Judged@10")  # fmt: skip
REC_MEASURES = ("nDCG@10", "AP@10", "P@5", "R@10", "RR", "HitRate@10", "AUC", "AUC@10", "F1@10", "MeanRank")
BEYOND = ("Coverage@10", "Gini@10", "Entropy@10", "Novelty@10", "SelfInformation@10", "ARP@10", "LongTail@10",
          "ILD@10", "Serendipity@10", "Unexpectedness@10")  # fmt: skip
INT_VALUES = {"rel": "2", "log_base": "10", "horizon": "5", "docs": "100"}
FLOAT_VALUES = {"beta": "2", "p": "0.5", "T": "2", "max_grade": "3", "alpha": "0.3", "mult": "0.5",
                "head_share": "0.5", "tail_ratio": "0.1", "min_precision": "0.5", "max_fpr": "0.5", "hb": "1",
                "hc": "0.5", "med": "0.3", "rel_ret": "2", "nonrel_ret": "-0.5", "rel_not_ret": "-1",
                "nonrel_not_ret": "0.25"}  # fmt: skip
DOC_STYLES = ("d{}", "D{}", "{}", "doc-{:02d}", "x{}y")

Output = dict[str, Any]
Case = tuple[str, Any]


# ---------------------------------------------------------------------------------------------------------------
# Canonical, JSON-ready form of any output
def canon(value: Any) -> Any:
    """``value`` as JSON data: floats as their repr (bit-exact), containers recursively, dataclasses field by field
    (with their class name), DataFrames as schema and rows, measures as their canonical name."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, enum.Enum):
        return canon(value.value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return repr(float(value))
    if isinstance(value, np.ndarray):
        return {"dtype": str(value.dtype), "shape": list(value.shape), "values": canon(value.tolist())}
    if isinstance(value, pl.DataFrame):
        return {"schema": {name: str(dtype) for name, dtype in value.schema.items()}, "rows": canon(value.rows())}
    if isinstance(value, pl.Series):
        return {"dtype": str(value.dtype), "values": canon(value.to_list())}
    if type(value).__module__.startswith("pandas") and hasattr(value, "dtypes") and hasattr(value, "columns"):
        return {"columns": [str(c) for c in value.columns], "dtypes": [str(t) for t in value.dtypes],
                "rows": canon(value.to_numpy(dtype=object).tolist())}  # fmt: skip
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        if type(value).__name__ == "Measure":
            return str(value)
        fields = {f.name: canon(getattr(value, f.name)) for f in dataclasses.fields(value) if f.repr}
        return {"__type__": type(value).__name__, **fields}
    if isinstance(value, Mapping):
        return {key if isinstance(key, str) else json.dumps(canon(key)): canon(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [canon(item) for item in value]
    if isinstance(value, (set, frozenset)):
        return sorted((canon(item) for item in value), key=json.dumps)
    if isinstance(value, Path):
        return str(value)
    return re.sub(r" at 0x[0-9a-fA-F]+", " at 0x?", repr(value))


def error_output(exc: BaseException) -> Output:
    import rankwise

    kinds = [
        name for name in ("InputError", "MeasureError", "RankwiseError") if isinstance(exc, getattr(rankwise, name))
    ]
    return {"type": type(exc).__name__, "message": str(exc), "rankwise_classes": kinds}


def call(fn: Callable[[], Any], render: Callable[[Any], Any] = canon) -> Output:
    """Run ``fn`` and render what it returns; or its exception. Warnings and anything printed are outputs too."""
    out, err = io.StringIO(), io.StringIO()
    with warnings.catch_warnings(record=True) as caught, contextlib.redirect_stdout(out), \
            contextlib.redirect_stderr(err):  # fmt: skip
        warnings.simplefilter("always")
        try:
            result: Output = {"value": render(fn())}
        except Exception as exc:
            result = {"error": error_output(exc)}
    if caught:
        result["warnings"] = [f"{w.category.__name__}: {w.message}" for w in caught]
    if out.getvalue():
        result["stdout"] = out.getvalue()
    if err.getvalue():
        result["stderr"] = err.getvalue()
    return result


def render_result(result: Any) -> Output:
    """Everything an EvaluationResult shows: values per query (in query order) and in aggregate, notes, policies,
    the account of every query, and its long table."""
    keys = list(result.keys)
    table = result.to_polars()
    return {
        "keys": keys,
        "measures": [str(m) for m in result.measures],
        "query_ids": list(result.query_ids),
        "aggregate": canon(result.aggregate),
        # a global measure (Coverage, Gini, Entropy) has no per-query value: NaN before #21, left out after
        "per_query": {qid: [canon(values.get(key, math.nan)) for key in keys]
                      for qid, values in result.per_query.items()},
        "undefined": canon(result.undefined),
        "notes": list(result.notes()),
        "caveats": list(result.caveats),
        "policies": canon(result.policies),
        "accounting": canon(result.accounting),
        "run_name": result.run_name,
        "dialect": result.dialect,
        "values": {"dtype": str(result.values.dtype), "shape": list(result.values.shape)},
        "to_polars": {"schema": {n: str(t) for n, t in table.schema.items()}, "height": table.height},
    }


def render_table(table: Any) -> Output:
    """A loaded qrels or run table."""
    return {"__type__": type(table).__name__, "kind": canon(table.kind), "frame": canon(table.frame),
            "origin": canon(getattr(table.origin, "name", table.origin)), "run_name": table.run_name,
            "notes": list(table.notes)}  # fmt: skip


def render_comparison(comparison: Any) -> Output:
    return {
        "systems": list(comparison.systems),
        "keys": list(comparison.keys),
        "measures": [str(m) for m in comparison.measures],
        "query_ids": list(comparison.query_ids),
        "values": canon(comparison.values),
        "summaries": canon(comparison.summaries),
        "comparisons": canon(comparison.comparisons),
        "settings": canon(comparison.settings),
        "describe": comparison.settings.describe(),
        "caveats": list(comparison.caveats),
        "notes": list(comparison.notes()),
        "evaluations": [render_result(r) for r in comparison.evaluations],
        "tables": {t: canon(comparison.to_polars(t)) for t in ("systems", "pairs", "per_query")},
        "pandas_pairs_dtypes": [str(t) for t in comparison.to_pandas("pairs").dtypes],
    }


def render_dialects(comparison: Any) -> Output:
    return {"comparison": canon(comparison), "to_polars": canon(comparison.to_polars()),
            "to_pandas_dtypes": [str(t) for t in comparison.to_pandas().dtypes]}  # fmt: skip


def evaluate_case(qrels: Any, run: Any, measures: list[str], **options: Any) -> Output:
    """One evaluation; when a set of measures fails, each measure alone too (so one refused measure hides none)."""
    import rankwise

    output = call(lambda: rankwise.evaluate(qrels, run, measures, **options), render_result)
    if "error" in output and len(measures) > 1:
        output["per_measure"] = {
            m: call(lambda m=m: rankwise.evaluate(qrels, run, [m], **options), render_result) for m in measures
        }
    return output


# ---------------------------------------------------------------------------------------------------------------
# Random data (fixed seeds)
def tied_scores(rng: np.random.Generator, n: int) -> list[float]:
    """2-decimal scores, mostly with heavy ties."""
    kind = rng.random()
    if kind < 0.45:
        raw = rng.integers(0, 6, n) / 5
    elif kind < 0.8:
        raw = rng.random(n)
    elif kind < 0.9:
        raw = np.full(n, 0.5)
    else:
        raw = rng.integers(-3, 3, n) * 0.25
    return [float(x) for x in np.round(raw, 2)]


@dataclasses.dataclass(frozen=True)
class IrData:
    qrels: dict[str, dict[str, int]]
    run: dict[str, dict[str, float]]
    subtopics: dict[str, dict[str, dict[str, int]]]


def ir_data(seed: int, queries: int = 10) -> IrData:
    """Graded qrels (negative grades, queries without a relevant document), runs with ties, queries missing on
    either side, doc ids whose byte order differs from their numeric order; subtopic judgments."""
    rng = np.random.default_rng(seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    subtopics: dict[str, dict[str, dict[str, int]]] = {}
    for q in range(queries):
        qid = f"q{q}"
        n = int(rng.integers(3, 40))
        docs = [DOC_STYLES[int(rng.integers(len(DOC_STYLES)))].format(i) for i in range(n)]
        if q == 0 or rng.random() < 0.85:
            pool = [-1, 0, 0] if rng.random() < 0.15 else [-1, 0, 0, 1, 1, 2, 3]
            qrels[qid] = {d: int(rng.choice(pool)) for d in docs if rng.random() < 0.6} or {docs[0]: 1}
            judged = list(qrels[qid])
            topics = {}
            for s in range(int(rng.integers(1, 4))):
                chosen = {d: int(rng.integers(0, 2)) for d in judged if rng.random() < 0.4}
                if chosen:
                    topics[f"s{s}"] = chosen
            if topics:
                subtopics[qid] = topics
        if q == 0 or rng.random() < 0.85:
            m = int(rng.integers(1, n + 1))
            chosen_docs = [docs[int(i)] for i in rng.choice(n, m, replace=False)]
            run[qid] = dict(zip(chosen_docs, tied_scores(rng, m)))
    return IrData(qrels, run, subtopics)


@dataclasses.dataclass(frozen=True)
class RecData:
    truth: dict[str, dict[str, int]]
    recs: dict[str, dict[str, float]]
    train: dict[str, list[str]]
    baseline: dict[str, dict[str, float]]
    features: pl.DataFrame
    catalog: int


def rec_data(seed: int, users: int = 25, items: int = 60) -> RecData:
    """Ratings 1-5 (some users with none >= 4), top lists with tied scores, training interactions, another model's
    lists and binary item features."""
    rng = np.random.default_rng(seed)
    names = [str(i) for i in range(1, items + 1)]
    truth: dict[str, dict[str, int]] = {}
    recs: dict[str, dict[str, float]] = {}
    train: dict[str, list[str]] = {}
    baseline: dict[str, dict[str, float]] = {}
    for u in range(users):
        uid = f"u{u}"
        rated = rng.choice(items, size=int(rng.integers(2, 15)), replace=False)
        if u == 0 or rng.random() < 0.9:
            top = 6 if rng.random() < 0.85 else 4
            truth[uid] = {names[int(i)]: int(rng.integers(1, top)) for i in rated}
        train[uid] = [names[int(i)] for i in rng.choice(items, size=8, replace=False)]
        if u == 0 or rng.random() < 0.9:
            listed = rng.choice(items, size=int(rng.integers(5, 21)), replace=False)
            recs[uid] = dict(zip((names[int(i)] for i in listed), tied_scores(rng, len(listed))))
            other = rng.choice(items, size=10, replace=False)
            baseline[uid] = {names[int(i)]: float(10 - j) for j, i in enumerate(other)}
    features = pl.DataFrame({"item_id": names, **{f"f{j}": rng.integers(0, 2, items) for j in range(1, 4)}})
    return RecData(truth, recs, train, baseline, features, items)


def rec_options(data: RecData, threshold: float | None = 4) -> dict[str, Any]:
    return {"threshold": threshold, "train": data.train, "catalog": data.catalog, "features": data.features,
            "baseline": data.baseline}  # fmt: skip


def trec_lines(qrels: Mapping[str, Mapping[str, Any]]) -> str:
    return "".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items())


def run_lines(run: Mapping[str, Mapping[str, float]], tag: str = "tag") -> str:
    return "".join(f"{q} Q0 {d} 0 {s!r} {tag}\n" for q, docs in run.items() for d, s in docs.items())


# ---------------------------------------------------------------------------------------------------------------
# Metadata: dialects, families, measure names
def measure_for(spec: Any, head: str | None = None) -> str:
    """The family's measure with a typical cutoff (a rank cutoff 10, a recall level 0.5)."""
    head = head or spec.name
    return head + ("@10" if spec.cutoff == "rank" else "@0.5" if spec.cutoff == "recall" else "")


def family_measures(spec: Any) -> list[str]:
    """One measure string per parameter value of the family (the default, each choice, a typical number)."""
    variants = [""]
    for p in spec.params:
        if p.kind in ("choice", "gain"):
            values = list(p.choices) + (["{1:1,2:3}"] if p.kind == "gain" else [])
        elif p.kind == "int":
            values = [INT_VALUES.get(p.name, "3")]
        elif p.kind == "float":
            values = [FLOAT_VALUES.get(p.name, "0.5")]
        else:
            values = ["{0,3}" if p.name == "scale" else "{0.25,0.5}"]
        variants += [f"{p.name}={v}" for v in values]
    out = []
    for variant in variants:
        head = f"{spec.name}({variant})" if variant else spec.name
        out.append(measure_for(spec, head))
        if not variant and spec.cutoff is not None and not spec.cutoff_required:
            out.append(head)
    return out


def meta_cases() -> Iterator[Case]:
    import rankwise
    from rankwise.dialects import DIALECTS
    from rankwise.measures import FAMILIES

    yield "meta/dialects/keys", [d.key for d in DIALECTS]
    for d in DIALECTS:
        yield f"meta/dialect/{d.key}", canon(d)
        binds = {}
        for m in (*IR_MEASURES, *REC_MEASURES, *BEYOND):
            for level in (1, 2):
                binds[f"{m} rel_level={level}"] = call(
                    lambda d=d, m=m, level=level: str(d.bind(rankwise.parse_measure(m), level))
                )
        yield f"meta/dialect/{d.key}/bind", binds
    names = sorted({d.name for d in DIALECTS})
    texts = [*names, *(f"{d.name}@{v}" for d in DIALECTS for v in d.versions), *(f"{n}@99" for n in names),
             "lightgbn", "lightgbm@3", "ranx@0.2", "ranx@0.30", "ranx@0", "LightGBM@4", "spark_mllib@3.5", "",
             "replay@0.12", "daisyrec@2", "neurec@2020.python"]  # fmt: skip
    yield "meta/get_dialect", {t: call(lambda t=t: rankwise.get_dialect(t).key) for t in texts}
    yield "meta/families/names", [[spec.name, list(spec.aliases)] for spec in FAMILIES]
    for spec in FAMILIES:
        yield f"meta/family/{spec.name}", canon(spec)
    parsed: dict[str, Any] = {}
    names_to_parse = [name for spec in FAMILIES for name in (spec.name, *spec.aliases)]
    names_to_parse += [n.lower() for n in names_to_parse] + [n.upper() for n in names_to_parse]
    names_to_parse += [f"{n}@10" for n in names_to_parse] + [f"{n}@0.5" for n in names_to_parse]
    names_to_parse += [m for spec in FAMILIES for m in family_measures(spec)]
    names_to_parse += ["map", "P.5,10", "P_5", "ndcg_cut.10,20", "recall_100", "official", "all_trec", "set",
                       "iprec_at_recall_0.10", "Rprec_mult_0.20", "P_1e3", "P_x", "nDGC@10", "AP(denom=x)@5",
                       "P_IA@10", "p_ia@5", "MAP@100", "nDCG(gain={1:1,2:3})@10", "AP(denom=min_k_R)@20",
                       "P(rel=2)@5", "gm_map", "bpref", "ndcg", "ndcg_rel", "Rndcg", "yaap", "utility.2,-1,-1,0.5",
                       "set_F.0.25", "success.1,5", "11pt_avg", "infAP", "G", "binG", "dcg", "ideal_dcg", "unj.1,3",
                       "relative_P.2,4", "rbp.p=0.7", "P@0", "P@-1", "P@1.5", "nDCG(gain=exp2", "AP(denom=k)(x)",
                       "P@" + "9" * 30, "", "  nDCG@10  ", "nDCG@10,AP", "alpha-nDCG@20", "ERR-IA@20",
                       "LongTail(head_share=0.5,tail_ratio=0.1)", "Unexpectedness", "num_q", "runid"]  # fmt: skip
    for name in dict.fromkeys(names_to_parse):
        parsed[name] = {"measure": call(lambda name=name: str(rankwise.parse_measure(name))),
                        "measures": call(lambda name=name: rankwise.parse_measures(name))}  # fmt: skip
    yield "meta/parse", parsed


# ---------------------------------------------------------------------------------------------------------------
# The API: dialects × policies, families, inputs
def dialect_measures(dialect: Any, base: Iterable[str], families: Mapping[str, Any]) -> list[str]:
    bound = [measure_for(families[name]) for name in dialect.bindings if name in families]
    return list(dict.fromkeys([*base, *bound]))


def dialect_cases() -> Iterator[Case]:
    from rankwise.dialects import DIALECTS
    from rankwise.measures import FAMILIES

    families = {spec.name: spec for spec in FAMILIES}
    ir = ir_data(1)
    rec = rec_data(2)
    sets = {
        "ir": (ir.qrels, ir.run, IR_MEASURES, {"subtopics": ir.subtopics}),
        "ratings": (rec.truth, rec.recs, (*REC_MEASURES, *BEYOND), rec_options(rec)),
    }
    for d in DIALECTS:
        for data, (qrels, run, base, options) in sets.items():
            prefix = f"api/dialect/{d.key}/{data}"
            measures = dialect_measures(d, base, families)
            good = []
            for m in measures:
                output = evaluate_case(qrels, run, [m], dialect=d.key, **options)
                good += [m] if "error" not in output else []
                yield f"{prefix}/alone/{m}", output
            for ties in TIES:
                for queries in QUERIES:
                    yield (
                        f"{prefix}/ties={ties}/queries={queries}",
                        evaluate_case(qrels, run, good, dialect=d.key, ties=ties, queries=queries, **options),
                    )
            extras: dict[str, dict[str, Any]] = {
                "depth=3": {"depth": 3}, "judged_only": {"judged_only": True}, "rel_level=2": {"rel_level": 2},
                "scores=float32": {"scores": "float32"}, "depth=5,judged_only,rel_level=2":
                {"depth": 5, "judged_only": True, "rel_level": 2},
            }  # fmt: skip
            for name, extra in extras.items():
                yield f"{prefix}/{name}", evaluate_case(qrels, run, good, dialect=d.key, **options, **extra)
            yield (
                f"{prefix}/cutoffs=5,10",
                evaluate_case(
                    qrels, run, ["nDCG", "P", "AP", "R", "RR", "HitRate"], dialect=d.key, cutoffs=[5, 10], **options
                ),
            )
            yield f"{prefix}/version@99", evaluate_case(qrels, run, good[:4], dialect=f"{d.name}@99", **options)
        yield (
            f"api/dialect/{d.key}/ratings/no_threshold",
            evaluate_case(rec.truth, rec.recs, list(REC_MEASURES), dialect=d.key, **rec_options(rec, None)),
        )
        yield (
            f"api/dialect/{d.key}/ratings/threshold=3.5",
            evaluate_case(rec.truth, rec.recs, list(REC_MEASURES), dialect=d.key, **rec_options(rec, 3.5)),
        )


def family_cases() -> Iterator[Case]:
    from rankwise.measures import FAMILIES

    ir = ir_data(3)
    rec = rec_data(4)
    for spec in FAMILIES:
        for m in family_measures(spec):
            yield f"api/family/{spec.name}/{m}/ir", evaluate_case(ir.qrels, ir.run, [m], subtopics=ir.subtopics)
            yield (
                f"api/family/{spec.name}/{m}/ir,ties=average,queries=qrels,rel_level=2",
                evaluate_case(
                    ir.qrels, ir.run, [m], subtopics=ir.subtopics, ties="average", queries="qrels", rel_level=2
                ),
            )
            yield f"api/family/{spec.name}/{m}/ratings", evaluate_case(rec.truth, rec.recs, [m], **rec_options(rec))
        measures = family_measures(spec)
        yield f"api/family/{spec.name}/all/ir", evaluate_case(ir.qrels, ir.run, measures, subtopics=ir.subtopics)


def input_cases(tmp: Path) -> Iterator[Case]:
    import pandas as pd

    import rankwise

    folder = tmp / "api-inputs"
    folder.mkdir()
    ir = ir_data(11)
    measures = ["nDCG@10", "AP", "P@5", "RR", "bpref", "NumRet"]
    q_rows = [(q, d, g) for q, docs in ir.qrels.items() for d, g in docs.items()]
    r_rows = [(q, d, s) for q, docs in ir.run.items() for d, s in docs.items()]
    q_frame = pl.DataFrame(q_rows, schema={"query_id": pl.String, "doc_id": pl.String, "relevance": pl.Int64},
                           orient="row")  # fmt: skip
    r_frame = pl.DataFrame(r_rows, schema={"query_id": pl.String, "doc_id": pl.String, "score": pl.Float64},
                           orient="row")  # fmt: skip
    (folder / "qrels.txt").write_text(trec_lines(ir.qrels))
    (folder / "run.txt").write_text(run_lines(ir.run))
    (folder / "qrels.txt.gz").write_bytes(gzip.compress((folder / "qrels.txt").read_bytes(), mtime=0))
    (folder / "run.txt.gz").write_bytes(gzip.compress((folder / "run.txt").read_bytes(), mtime=0))
    q_frame.write_csv(folder / "qrels.csv")
    r_frame.write_csv(folder / "run.csv")
    q_frame.write_csv(folder / "qrels.tsv", separator="\t")
    r_frame.write_csv(folder / "run.tsv", separator="\t")
    q_frame.write_parquet(folder / "qrels.parquet")
    r_frame.write_parquet(folder / "run.parquet")
    forms: dict[str, tuple[Any, Any]] = {
        "dict": (ir.qrels, ir.run),
        "polars": (q_frame, r_frame),
        "polars_lazy": (q_frame.lazy(), r_frame.lazy()),
        "pandas": (q_frame.to_pandas(), r_frame.to_pandas()),
        "pyarrow": (q_frame.to_arrow(), r_frame.to_arrow()),
        **{ext: (str(folder / f"qrels.{ext}"), str(folder / f"run.{ext}"))
           for ext in ("txt", "txt.gz", "csv", "tsv", "parquet")},
    }  # fmt: skip
    for name, (qrels, run) in forms.items():
        yield f"api/input/{name}", evaluate_case(qrels, run, measures)
        yield f"api/input/{name}/load_qrels", call(lambda qrels=qrels: rankwise.load_qrels(qrels), render_table)
        yield f"api/input/{name}/load_run", call(lambda run=run: rankwise.load_run(run), render_table)
    for name in ("txt", "txt.gz", "parquet"):
        for stream in (True, False):
            yield (f"api/input/{name}/stream={stream}",
                   evaluate_case(str(folder / f"qrels.{name}"), str(folder / f"run.{name}"), measures, stream=stream,
                                 queries="qrels", ties="average"))  # fmt: skip
    yield "api/input/mixed/dict+txt", evaluate_case(ir.qrels, str(folder / "run.txt"), measures)
    yield "api/input/mixed/parquet+pandas", evaluate_case(str(folder / "qrels.parquet"), r_frame.to_pandas(), measures)
    yield "api/input/default_measures", evaluate_case(ir.qrels, ir.run, None)  # type: ignore[arg-type]
    yield "api/input/one_measure_string", call(lambda: rankwise.evaluate(ir.qrels, ir.run, "nDCG@10"), render_result)
    yield (
        "api/input/measure_objects",
        call(lambda: rankwise.evaluate(ir.qrels, ir.run, [rankwise.parse_measure("AP(denom=k)@5")]), render_result),
    )
    yield "api/input/trec_sets", evaluate_case(ir.qrels, ir.run, ["official", "P.5,10", "ndcg_cut.10,20", "map_cut.5"])
    renamed_q = q_frame.rename({"query_id": "u", "doc_id": "i", "relevance": "r"})
    renamed_r = r_frame.rename({"query_id": "u", "doc_id": "i", "score": "s"})
    yield ("api/input/columns",
           evaluate_case(renamed_q, renamed_r, measures, qrels_columns={"query_id": "u", "doc_id": "i", "value": "r"},
                         run_columns=("u", "i", "s")))  # fmt: skip
    ranked = r_frame.sort(["query_id", "score", "doc_id"], descending=[False, True, False]).with_columns(
        pl.int_range(1, pl.len() + 1).over("query_id").alias("rank")).drop("score")  # fmt: skip
    yield "api/input/rank_column", evaluate_case(q_frame, ranked, measures)
    yield ("api/input/rank_columns_named",
           evaluate_case(q_frame, ranked.rename({"rank": "pos"}), measures,
                         run_columns={"query_id": "query_id", "doc_id": "doc_id", "rank": "pos"}))  # fmt: skip
    ints_q = pl.DataFrame({"query_id": [1, 2, 2], "doc_id": [10, 20, 3], "relevance": [1, 1, 0]})
    ints_r = pd.DataFrame({"query_id": [1, 2, 2], "doc_id": [10, 3, 20], "score": [0.3, 0.2, 0.2]})
    yield "api/input/integer_ids", evaluate_case(ints_q, ints_r, ["P@1", "AP", "nDCG@2"])
    yield ("api/input/integer_ids_numeric_ties",
           evaluate_case(ints_q, ints_r, ["P@1", "AP"], ties="docno_desc_numeric"))  # fmt: skip
    real = {q: {d: round(abs(g) * 0.37, 2) for d, g in docs.items()} for q, docs in ir.qrels.items()}
    for m in (["nDCG@10", "ERR(max_grade=3)@10", "RBP", "Judged@10", "DCG@5"], ["nDCG(rel=1)@10", "P(rel=1)@10"],
              ["P@10"], ["nDCG(gain={1:1,2:3})@10"]):  # fmt: skip
        yield f"api/input/real_grades/{','.join(m)}", evaluate_case(real, ir.run, m, grades="real")
    yield "api/input/real_grades/load", call(lambda: rankwise.load_qrels(real, grades="real"), render_table)
    yield "api/input/thresholds/load", call(lambda: rankwise.load_qrels(q_frame, threshold=2), render_table)
    yield "api/input/subtopics_only", evaluate_case(None, ir.run, ["alpha-nDCG@10", "ERR-IA@10", "nDCG@10", "AP-IA",
                                                                   "P-IA@5", "StRecall@5", "NRBP", "nNRBP"],
                                                    subtopics=ir.subtopics)  # fmt: skip
    yield from bad_input_cases(folder)


def bad_input_cases(folder: Path) -> Iterator[Case]:
    import pandas as pd

    import rankwise

    good_qrels = "q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 2\n"
    good_run = "q1 Q0 d1 1 2.0 t\nq1 Q0 d2 2 1.0 t\nq2 Q0 d3 1 0.5 t\n"
    bad_runs = ["q1 Q0 d1 1 2.0 t\nq1 Q0 d2 2 abc t\n", "q1 Q0 d1 1 2.0 t\nq1 Q0 d2 2 t\n",
                "q1 Q0 d1 1 2.0 t\nq1 Q0 d2 2 1.0 t\x00\n", "# header\n\nq1 Q0 d1 1 2.0 t\nq1 Q0 d1 2 1.0 t\n",
                "q1 Q0 d1 1 nan t\n", "q1 Q0 d1 1 2.0 t\nq1 Q0 d2 2 -inf t\n", "", "# only a comment\n\n",
                "zz Q0 d1 1 2.0 t\n", "q1 Q0 d1 1 2.0 t extra words\n", "q1\tQ0\td1\t1\t2.0\tt\r\n\x0bq2 Q0 d3 1 1 t\n",
                "q1 Q0 d1 1 1e400 t\n", "q1 Q0 d1 1 0x1p3 t\n"]  # fmt: skip
    bad_qrels = ["q1 0 d1 1.5\n", "q1 0 d1 x\n", "q1 0 d1 1\nq1 0 d1 2\n", "q1 0 d1\n", "q1 0 d1 1\nq1 0 d2 1 extra\n",
                 "", "q1 0 d1 " + "9" * 40 + "\n", "q1 0 d1 -3\nq1 0 d2 -1\n"]  # fmt: skip
    (folder / "good_qrels.txt").write_text(good_qrels)
    (folder / "good_run.txt").write_text(good_run)
    for i, text in enumerate(bad_runs):
        path = folder / f"bad_run_{i}.txt"
        path.write_bytes(text.encode())
        yield f"api/input/bad/run/{i}", evaluate_case(str(folder / "good_qrels.txt"), str(path), ["map", "P@1"])
    for i, text in enumerate(bad_qrels):
        path = folder / f"bad_qrels_{i}.txt"
        path.write_bytes(text.encode())
        yield f"api/input/bad/qrels/{i}", evaluate_case(str(path), str(folder / "good_run.txt"), ["map", "P@1"])
    q, r = {"q": {"d": 1}}, {"q": {"d": 1.0}}
    nan_frame = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["d1", "d2"], "score": [1.0, float("nan")]})
    others: dict[str, Callable[[], Any]] = {
        "missing_file": lambda: rankwise.evaluate(str(folder / "nope.txt"), str(folder / "good_run.txt"), ["map"]),
        "nan_frame": lambda: rankwise.evaluate({"q1": {"d1": 1}}, nan_frame, ["map"]),
        "float_ids": lambda: rankwise.evaluate(
            q, pl.DataFrame({"query_id": [1.0], "doc_id": ["d1"], "score": [1.0]}), ["map"]
        ),
        "no_score_column": lambda: rankwise.evaluate(
            q, pd.DataFrame({"qid": ["q"], "docno": ["d"], "points": [1.0]}), ["map"]
        ),
        "dict_text_score": lambda: rankwise.evaluate(q, {"q": {"d": "x"}}, ["map"]),
        "empty_run": lambda: rankwise.evaluate(q, {}, ["map"]),
        "empty_qrels": lambda: rankwise.evaluate({}, r, ["map"]),
        "empty_run_ir_measures": lambda: rankwise.evaluate(q, {}, ["map"], dialect="ir_measures"),
        "unknown_measure": lambda: rankwise.evaluate(q, r, ["nDGC@10"]),
        "bad_param": lambda: rankwise.evaluate(q, r, ["AP(denom=x)@5"]),
        "bad_ties": lambda: rankwise.evaluate(q, r, ["map"], ties="random"),
        "bad_queries": lambda: rankwise.evaluate(q, r, ["map"], queries="all"),
        "bad_depth": lambda: rankwise.evaluate(q, r, ["map"], depth=0),
        "bad_rel_level": lambda: rankwise.evaluate(q, r, ["map"], rel_level=-1),
        "bad_scores": lambda: rankwise.evaluate(q, r, ["map"], scores="float16"),
        "bad_judged_only": lambda: rankwise.evaluate(q, r, ["map"], judged_only="yes"),
        "unknown_dialect": lambda: rankwise.evaluate(q, r, ["map"], dialect="lightgbn"),
        "old_dialect_version": lambda: rankwise.evaluate(q, r, ["map"], dialect="lightgbm@3"),
        "bad_columns": lambda: rankwise.evaluate(q, r, ["map"], run_columns={"user": "u"}),
        "bad_source": lambda: rankwise.evaluate(q, 42, ["map"]),
        "beyond_without_train": lambda: rankwise.evaluate(q, r, ["Novelty@10"]),
        "ild_without_features": lambda: rankwise.evaluate(q, r, ["ILD(kind=feature_cosine)"], train={"q": ["d"]}),
        "unexpectedness_uncut": lambda: rankwise.evaluate(q, r, ["Unexpectedness"]),
        "intent_without_subtopics": lambda: rankwise.evaluate(q, r, ["alpha-nDCG@10"]),
        "gmap_compare": lambda: rankwise.compare(q, [r, r], ["GMAP"]),
        "compare_one_run": lambda: rankwise.compare(q, [r], ["map"]),
        "compare_unknown_option": lambda: rankwise.compare(q, [r, r], ["map"], colour="red"),
        "compare_bad_alpha": lambda: rankwise.compare(q, [r, r], ["map"], alpha=2),
        "compare_dialects_none": lambda: rankwise.compare_dialects(q, r, ["map"], dialects=[]),
        "parse_not_string": lambda: rankwise.parse_measures(["nDCG@10"]),
        "threshold_real_grades": lambda: rankwise.evaluate({"q": {"d": 0.5}}, r, ["P@1"], grades="real"),
    }
    for name, fn in others.items():
        yield f"api/input/bad/{name}", call(fn, lambda v: render_result(v) if hasattr(v, "per_query") else canon(v))


# ---------------------------------------------------------------------------------------------------------------
# MovieLens 100K through the recommendation path
@dataclasses.dataclass(frozen=True)
class Ml100k:
    train: pl.DataFrame
    truth: pl.DataFrame
    recs: pl.DataFrame
    baseline: pl.DataFrame
    features: pl.DataFrame
    n_items: int


def ml100k(path: Path, k: int = 20) -> Ml100k:
    """A per-user time split (each user's last 20 % of ratings by timestamp and item id, at least one, held out),
    test rows of items unknown in training dropped; for every test user the k most popular training items it has
    not rated (ties: smaller item id first, scores tied as they are), a seeded random top-k as the baseline lists,
    seeded binary item features."""
    frame = pl.read_csv(path, separator="\t")
    frame.columns = [c.split(":")[0] for c in frame.columns]
    frame = frame.select(
        pl.col("user_id").cast(pl.Int64),
        pl.col("item_id").cast(pl.Int64),
        pl.col("rating").cast(pl.Int64),
        pl.col("timestamp").cast(pl.Float64),
    )
    frame = frame.sort(["user_id", "timestamp", "item_id"]).with_columns(
        position=pl.int_range(pl.len()).over("user_id"), size=pl.len().over("user_id")
    )
    held_out = pl.col("position") >= pl.col("size") - (pl.col("size") * 0.2).ceil().cast(pl.Int64).clip(1)
    train, test = frame.filter(~held_out), frame.filter(held_out)
    test = test.filter(pl.col("item_id").is_in(train["item_id"].implode()))
    counts = train.group_by("item_id").len().sort(["len", "item_id"], descending=[True, False])
    order, popularity = counts["item_id"].to_list(), counts["len"].to_list()
    seen = {u: set(items) for u, items in train.group_by("user_id").agg("item_id").iter_rows()}
    users = sorted(set(test["user_id"].to_list()))
    rng = np.random.default_rng(100)
    rec_rows, base_rows = [], []
    for u in users:
        mine = seen.get(u, set())
        chosen = [(i, float(c)) for i, c in zip(order, popularity) if i not in mine][:k]
        rec_rows += [(str(u), str(i), c) for i, c in chosen]
        candidates = [i for i in order if i not in mine]
        picked = rng.choice(len(candidates), size=k, replace=False)
        base_rows += [(str(u), str(candidates[int(j)]), float(k - n)) for n, j in enumerate(picked)]
    schema = {"user_id": pl.String, "item_id": pl.String, "score": pl.Float64}
    items = sorted(set(order))
    features = pl.DataFrame({"item_id": [str(i) for i in items],
                             **{f"g{j}": rng.integers(0, 2, len(items)) for j in range(5)}})  # fmt: skip
    return Ml100k(
        train=train.select(pl.col("user_id").cast(pl.String), pl.col("item_id").cast(pl.String)),
        truth=test.select(pl.col("user_id").cast(pl.String), pl.col("item_id").cast(pl.String), "rating"),
        recs=pl.DataFrame(rec_rows, schema=schema, orient="row"),
        baseline=pl.DataFrame(base_rows, schema=schema, orient="row"),
        features=features,
        n_items=len(items),
    )


def ml100k_cases(data_dir: Path) -> Iterator[Case]:
    import rankwise
    from rankwise.dialects import DIALECTS

    path = data_dir / "ml-100k" / "ml-100k.inter"
    if not path.exists():
        yield "api/ml100k/skipped", f"{path.name} not found"
        return
    data = ml100k(path)
    yield "api/ml100k/data", {"train": data.train.height, "truth": data.truth.height, "recs": data.recs.height,
                              "items": data.n_items,
                              "recs_sha256": hashlib.sha256(data.recs.write_csv().encode()).hexdigest()}  # fmt: skip
    accuracy = ["nDCG@10", "nDCG@20", "AP@20", "P@10", "R@20", "RR@20", "HitRate@10", "AUC@20", "F1@10", "MeanRank@20"]
    beyond = [
        "Coverage@20",
        "Coverage(over=train)@20",
        "Gini@20",
        "Entropy@20",
        "Novelty@20",
        "SelfInformation@20",
        "ARP@20",
        "LongTail@20",
        "ILD@20",
        "Serendipity@20",
        "Unexpectedness@20",
        "ILD(kind=feature_cosine)@20",
    ]
    options = {"threshold": 4, "train": data.train, "catalog": data.n_items}
    for d in DIALECTS:
        yield f"api/ml100k/{d.key}/accuracy", evaluate_case(data.truth, data.recs, accuracy, dialect=d.key, **options)
        for m in beyond:
            if m.startswith("Serendipity") and not (d is DIALECTS[0] or "Serendipity" in d.bindings or
                                                    "Serendipity" in d.measure_queries):  # fmt: skip
                continue  # by item co-occurrence: slow, and the same definition as under trec_eval
            yield (f"api/ml100k/{d.key}/{m}",
                   evaluate_case(data.truth, data.recs, [m], dialect=d.key, features=data.features,
                                 baseline=data.baseline, **options))  # fmt: skip
    everything = [*accuracy, *beyond]
    yield (
        "api/ml100k/no_dialect/all",
        evaluate_case(data.truth, data.recs, everything, features=data.features, baseline=data.baseline, **options),
    )
    yield (
        "api/ml100k/compare_dialects",
        call(
            lambda: rankwise.compare_dialects(
                data.truth,
                data.recs,
                ["AP@20", "nDCG@20", "P@10", "RR@20", "HitRate@10"],
                threshold=4,
                train=data.train,
                catalog=data.n_items,
            ),
            render_dialects,
        ),
    )


# ---------------------------------------------------------------------------------------------------------------
# rankwise.compare and compare_dialects
def synthetic_runs(seed: int, queries: int = 30, systems: int = 3) -> tuple[dict, list[dict]]:
    rng = np.random.default_rng(seed)
    qrels = {f"q{q}": {f"d{d}": int(rng.integers(0, 3)) for d in range(25)} for q in range(queries)}
    runs = []
    for s in range(systems):
        run = {}
        for q, judged in qrels.items():
            if rng.random() < 0.07:
                continue  # a query missing from this run
            base = np.round(rng.random(25) * 0.6 + s * 0.15 * np.array(list(judged.values())), 2)
            run[q] = {f"d{d}": float(base[d]) for d in range(25) if rng.random() < 0.8}
        runs.append(run)
    return qrels, runs


def compare_cases(examples: Path) -> Iterator[Case]:
    import rankwise

    qrels, runs = synthetic_runs(21)
    measures = ["nDCG@10", "AP", "P@5", "RR"]
    settings: dict[str, dict[str, Any]] = {
        "default": {}, "t": {"test": "t"}, "wilcoxon": {"test": "wilcoxon"}, "sign": {"test": "sign"},
        "randomization": {"test": "randomization"}, "bootstrap": {"test": "bootstrap", "resamples": 2000},
        "tukey": {"test": "tukey", "resamples": 2000}, "bonferroni": {"correction": "bonferroni"},
        "bh": {"correction": "bh"}, "none": {"correction": "none"}, "all_pairs": {"pairs": "all"},
        "interval_t": {"interval": "t"}, "percentile": {"interval": "percentile", "resamples": 3000, "seed": 7},
        "missing_drop": {"missing": "drop"}, "family_all": {"family": "all", "alpha": 0.1},
        "baseline_index": {"baseline": 2}, "baseline_name": {"baseline": "run2", "confidence": 0.9},
        "names": {"names": ["bm25", "rm3", "dense"]}, "policies": {"ties": "average", "queries": "qrels", "depth": 10},
        "dialect_ranx": {"dialect": "ranx"},
    }  # fmt: skip
    for name, options in settings.items():
        yield (
            f"api/compare/synthetic/{name}",
            call(lambda options=options: rankwise.compare(qrels, runs, measures, **options), render_comparison),
        )
    yield (
        "api/compare/synthetic/mapping",
        call(lambda: rankwise.compare(qrels, {"a": runs[0], "b": runs[1]}, ["nDCG@10"]), render_comparison),
    )
    yield ("api/compare/synthetic/default_measures",
           call(lambda: rankwise.compare(qrels, runs[:2]), render_comparison))  # fmt: skip
    example_runs = [str(examples / n) for n in ("run.txt", "run_rm3.txt", "run_dense.txt")]
    yield (
        "api/compare/example",
        call(lambda: rankwise.compare(str(examples / "qrels.txt"), example_runs, measures), render_comparison),
    )
    yield ("api/compare/example/randomization",
           call(lambda: rankwise.compare(str(examples / "qrels.txt"), example_runs, ["nDCG@10", "AP", "P@5"],
                                         test="randomization"), render_comparison))  # fmt: skip
    rec = rec_data(22)
    other = rec_data(23)
    yield ("api/compare/ratings/replay",
           call(lambda: rankwise.compare(rec.truth, [rec.recs, other.recs, rec.baseline], ["nDCG@10", "AP@10"],
                                         dialect="replay", threshold=4), render_comparison))  # fmt: skip
    ir = ir_data(24)
    for name, kwargs in {"default": {}, "rel_level=2": {"rel_level": 2}, "two_dialects": {"dialects": ["ranx",
                         "lightgbm@4"]}, "cutoffs": {"cutoffs": [5, 10]}}.items():  # fmt: skip
        measures_here = ["AP", "nDCG", "P"] if name == "cutoffs" else ["AP@10", "nDCG@10", "P@5", "bpref"]
        yield (f"api/compare_dialects/ir/{name}",
               call(lambda kwargs=kwargs, m=measures_here: rankwise.compare_dialects(ir.qrels, ir.run, m, **kwargs),
                    render_dialects))  # fmt: skip
    yield ("api/compare_dialects/ratings",
           call(lambda: rankwise.compare_dialects(rec.truth, rec.recs, ["AP@10", "nDCG@10", "AUC", "Coverage@10"],
                                                  threshold=4, train=rec.train, catalog=rec.catalog),
                render_dialects))  # fmt: skip


# ---------------------------------------------------------------------------------------------------------------
# The command line
@dataclasses.dataclass
class CliJob:
    """Commands run one after the other in the work folder (``python -m rankwise ARGS``), then files read."""

    name: str
    steps: list[list[str]]
    files: list[str] = dataclasses.field(default_factory=list)


def cli_env(work: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "CLICOLOR_FORCE", "TERM")}
    (work / ".tmp").mkdir(exist_ok=True)
    env.update(COLUMNS="120", LINES="40", PYTHONHASHSEED="0", PYTHONIOENCODING="utf-8", TZ="UTC", LC_ALL="C.UTF-8",
               TMPDIR=str(work / ".tmp"), NO_COLOR="1", MPLBACKEND="Agg")  # fmt: skip
    return env


DATA_URI = re.compile(r"data:([\w/+.-]+);base64,([A-Za-z0-9+/=]+)")


def _hash_uri(match: re.Match[str]) -> str:
    """An embedded image (an HTML report's plots) as its type, size and hash."""
    return f"data:{match[1]};{len(match[2])} base64 characters;sha256={hashlib.sha256(match[2].encode()).hexdigest()}"


def run_job(job: CliJob, work: Path, env: dict[str, str]) -> Output:
    steps = []
    for args in job.steps:
        done = subprocess.run([sys.executable, "-m", "rankwise", *args], cwd=work, env=env, capture_output=True,
                              stdin=subprocess.DEVNULL, timeout=300)  # fmt: skip
        steps.append({"args": args, "exit": done.returncode,
                      "stdout": done.stdout.decode("utf-8", "backslashreplace"),
                      "stderr": done.stderr.decode("utf-8", "backslashreplace")})  # fmt: skip
    files: dict[str, Any] = {}
    for name in job.files:
        path = work / name
        if not path.is_file():
            files[name] = None
            continue
        data = path.read_bytes()
        try:
            files[name] = DATA_URI.sub(_hash_uri, data.decode("utf-8"))
        except UnicodeDecodeError:
            files[name] = {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}
    return {"steps": steps, "files": files} if job.files else {"steps": steps}


def trec_eval_case(seed: int) -> tuple[dict, dict]:
    """As ir_data, float32-representable tied scores, sometimes long runs (cutoffs 100+ inside the run)."""
    rng = np.random.default_rng(1000 + seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(int(rng.integers(1, 8))):
        qid = f"q{q}"
        n = int(rng.integers(1, 30) if rng.random() < 0.9 else rng.integers(100, 320))
        docs = [DOC_STYLES[int(rng.integers(len(DOC_STYLES)))].format(i) for i in range(n)]
        if q == 0 or rng.random() < 0.85:
            pool = [-1, 0, 0] if rng.random() < 0.15 else [-2, -1, 0, 0, 1, 1, 2, 3]
            judged = {d: int(rng.choice(pool)) for d in docs if rng.random() < 0.6}
            judged[docs[0]] = max(0, judged.get(docs[0], 0))
            qrels[qid] = judged
        if q == 0 or rng.random() < 0.85:
            m = int(rng.integers(1, n + 1))
            chosen = [docs[int(i)] for i in rng.choice(n, m, replace=False)]
            run[qid] = dict(zip(chosen, (float(np.float32(s)) for s in tied_scores(rng, m))))
    return qrels, run


TREC_EVAL_OPTIONS = [
    [], ["-q"], ["-c"], ["-q", "-c"], ["-n", "-q"], ["-q", "-J"], ["-q", "-l2"], ["-q", "-M5"], ["-m", "all_trec"],
    ["-q", "-m", "all_trec"], ["-q", "-m", "ndcg_cut.5,10"], ["-q", "-N", "100", "-m", "utility.2,-1,-1,0.5"],
    ["-q", "-m", "all_trec", "-c"], ["-qc", "-m", "all_trec", "-M", "3", "-l", "2"],
    ["-q", "-J", "-M4", "-m", "all_trec", "-l2"], ["-q", "-n", "-m", "set", "-N", "500", "-mutility.2,-1,-1,0.5",
                                                  "-mset_F.0.25"],
    ["-q", "-mP.3,1,7", "-mndcg.1=3,2=9,0=0.5", "-mndcg_cut.2,23.4", "-mRprec_mult.0.35,1.5", "-m11pt_avg..25,.5,.75",
     "-miprec_at_recall..15,.55", "-mrbp.p=0.7", "-mrbp_resid.p=0.95", "-munj.1,3", "-mrelative_P.2,4",
     "-mrelstring.6", "-msuccess.2"],
    ["-q", "-m", "G", "-m", "dcg", "-m", "ndcg_rel", "-m", "Rndcg", "-m", "yaap", "-l2"],
    ["-q", "-c", "-m", "ideal_dcg", "-m", "Rndcg", "-m", "yaap", "-M6"],
    ["-q", "-J", "-mG.1=3,2=9,0=0.5", "-mndcg_rel.2=4.5,3=1", "-mRndcg.0=1,3=7"],
    ["-q", "-l0", "-mdcg.1=2,3=-1", "-mG", "-mRndcg", "-mndcg_rel"],
]  # fmt: skip


def prefs_case(seed: int, one_subgroup: bool) -> tuple[list[tuple[str, str, str, str, float]], dict]:
    """Random preferences: per query 1-3 judgment groups, of one sub-group (levels 0-3, some fractional) or, unless
    ``one_subgroup``, of 2-3 sub-groups consistent with one hidden order (no cycle); runs with ties."""
    rng = np.random.default_rng(2000 + seed)
    lines: list[tuple[str, str, str, str, float]] = []
    run: dict[str, dict[str, float]] = {}
    for q in range(int(rng.integers(1, 5))):
        qid = f"q{q}"
        pool = [f"d{int(i)}" for i in rng.choice(60, size=int(rng.integers(2, 30)), replace=False)]
        for g in range(int(rng.integers(1, 4))):
            docs = [str(d) for d in rng.choice(pool, size=int(rng.integers(1, len(pool) + 1)), replace=False)]
            if one_subgroup or rng.random() < 0.5 or len(docs) < 2:
                levels = [0, 0, 0, 1, 1, 2, 3] if rng.random() < 0.7 else [0, 0.5, 1.25, 2]
                lines += [(qid, f"g{g}", "0", d, levels[int(rng.integers(len(levels)))]) for d in docs]
                continue
            order = [str(d) for d in rng.permutation(docs)]
            relevant = int(rng.integers(0, len(order) + 1))
            for s in range(int(rng.integers(2, 4))):
                step = int(rng.integers(1, 4))
                for pos, d in enumerate(order):
                    if rng.random() < 0.6:
                        level = 0.0 if pos >= relevant else 1.0 + (len(order) - pos) // step
                        lines.append((qid, f"g{g}", f"s{s}", d, level))
        if q == 0 or rng.random() < 0.8:
            ranked = [d for d in pool if rng.random() < 0.6] + [f"u{i}" for i in range(int(rng.integers(0, 6)))]
            run[qid] = dict(zip(ranked, (float(np.float32(s)) for s in tied_scores(rng, len(ranked))))) or {"u0": 1.0}
    return [lines[i] for i in rng.permutation(len(lines))], run


def write_cli_inputs(work: Path, examples: Path, data_dir: Path) -> None:
    for name in ("qrels.txt", "run.txt", "run_dense.txt", "run_rm3.txt"):
        shutil.copyfile(examples / name, work / name)
    (work / "bad_qrels.txt").write_text("301 0 d1 1\n301 0 d2 x\n")
    (work / "bad_qrels5.txt").write_text("301 0 d1 1\n301 0 d2 1 extra\n")
    (work / "bad_run.txt").write_text("301 Q0 d1 1 2.0 t\n301 Q0 d2 2 abc t\n")
    (work / "dup_run.txt").write_text("301 Q0 d1 1 2.0 t\n301 Q0 d1 2 1.0 t\n")
    (work / "empty.txt").write_text("")
    rec = rec_data(31)
    pl.DataFrame([(u, i, r) for u, items in rec.truth.items() for i, r in items.items()],
                 schema={"user_id": pl.String, "item_id": pl.String, "rating": pl.Int64}, orient="row",
                 ).write_csv(work / "truth.csv")  # fmt: skip
    pl.DataFrame([(u, i, s) for u, items in rec.recs.items() for i, s in items.items()],
                 schema={"user_id": pl.String, "item_id": pl.String, "score": pl.Float64}, orient="row",
                 ).write_csv(work / "recs.csv")  # fmt: skip
    pl.DataFrame([(u, i, s) for u, items in rec.recs.items() for i, s in items.items()],
                 schema={"u": pl.String, "i": pl.String, "s": pl.Float64}, orient="row",
                 ).write_csv(work / "recs_named.tsv", separator="\t")  # fmt: skip
    pl.DataFrame(
        [(u, i) for u, items in rec.train.items() for i in items],
        schema={"user_id": pl.String, "item_id": pl.String},
        orient="row",
    ).write_csv(work / "train.csv")
    rec.features.write_csv(work / "features.csv")
    (work / "base.txt").write_text(run_lines(rec.baseline, "base"))
    ir = ir_data(32)
    (work / "div_qrels.txt").write_text("".join(f"{q} {s} {d} {g}\n" for q, topics in ir.subtopics.items()
                                                for s, docs in topics.items() for d, g in docs.items()))  # fmt: skip
    (work / "ir_qrels.txt").write_text(trec_lines(ir.qrels))
    (work / "ir_run.txt").write_text(run_lines(ir.run))
    for seed in range(30):
        qrels, run = trec_eval_case(seed)
        (work / f"te{seed}_qrels.txt").write_text(trec_lines(qrels))
        (work / f"te{seed}_run.txt").write_text(run_lines(run))
        if seed < 6:
            rng = np.random.default_rng(3000 + seed)
            lines = []
            for q, docs in qrels.items():
                groups = int(rng.integers(1, 4))
                for d, grade in docs.items():
                    for g in range(groups):
                        if g == 0 or rng.random() < 0.7:
                            value = grade if rng.random() < 0.6 else int(rng.integers(-1, 4))
                            lines.append(f"{q} u{g} {d} {value}\n")
            (work / f"jg{seed}.txt").write_text("".join(lines[i] for i in rng.permutation(len(lines))))
            for fmt in ("prefs", "qrels_prefs"):
                prefs, prun = prefs_case(seed, one_subgroup=fmt == "qrels_prefs")
                if fmt == "prefs":
                    text = "".join(f"{q} {g} {s} {d} {level}\n" for q, g, s, d, level in prefs)
                else:
                    text = "".join(f"{q} {g} {d} {level}\n" for q, g, s, d, level in prefs)
                (work / f"{fmt}{seed}.txt").write_text(text)
                (work / f"{fmt}{seed}_run.txt").write_text(run_lines(prun))
    (work / "zscores.txt").write_text("".join(f"{q} {m} 0.3 0.2\n" for q in trec_eval_case(0)[0]
                                              for m in ("map", "P_5", "ndcg")))  # fmt: skip
    (work / "bad_prefs.txt").write_text("q g s a 2\nq g s b 1\nq g t b 2\nq g t a 1\n")
    (work / "bad_jg.txt").write_text("q u a 1\nq u a 2\n")
    (work / "one_run.txt").write_text("q Q0 a 1 1 t\n")
    ml = data_dir / "ml-100k" / "ml-100k.inter"
    if ml.exists():
        shutil.copyfile(ml, work / "ml-100k.inter")
    for name, source in (("lr_train", "lambdarank/rank.train"), ("lr_test", "lambdarank/rank.test"),
                         ("tfr_train.txt", "tfr_toy/train.txt"), ("tfr_vali.txt", "tfr_toy/vali.txt")):  # fmt: skip
        if (data_dir / source).exists():
            shutil.copyfile(data_dir / source, work / name)
            if (data_dir / f"{source}.query").exists():
                shutil.copyfile(data_dir / f"{source}.query", work / f"{name}.query")


def cli_jobs(work: Path, families: list[Any], dialects: list[Any]) -> list[CliJob]:
    jobs: list[CliJob] = []

    def add(name: str, *steps: list[str], files: Iterable[str] = ()) -> None:
        jobs.append(CliJob(name, list(steps), list(files)))

    add("cli/version", ["-V"])
    add("cli/help", ["--help"])
    for command in ("evaluate", "compare", "dialects", "explain", "measures", "trec_eval", "ltr", "recsys-experiment",
                    "ltr train", "ltr predict", "ltr evaluate", "ltr qrels", "ltr relabel"):  # fmt: skip
        add(f"cli/help/{command}", [*command.split(), "--help"])
    add("cli/measures", ["measures"])
    add("cli/no_command", [])
    add("cli/unknown_command", ["evaluat"])
    # evaluate on the bundled example
    option_sets = [
        [], ["-q"], ["-m", "nDCG@10", "-m", "AP", "-m", "P@5"], ["-q", "-m", "nDCG@10", "-m", "AP", "-m", "P@5"],
        ["-q", "-m", "official", "-m", "set_F"], ["-c"], ["-J", "-q"], ["-M", "5", "-q"], ["-l", "2"],
        ["--ties", "average", "-q"],
        ["--dialect", "ranx", "-q"], ["--dialect", "lightgbm", "-m", "nDCG@10", "-m", "AP@10"],
        ["--scores", "float32"], ["-k", "5,10", "-m", "P", "-m", "nDCG"], ["--queries", "run", "-q"],
        ["-m", "ndcg_cut.10,20", "-m", "P.5,10", "-m", "official"], ["--stream", "-q"],
        ["-q", "-m", "GMAP", "-m", "MeanRank", "-m", "KendallTau", "-m", "AUC", "-m", "NumQ"],
        ["-qcJ", "-M10", "-l2", "-m", "bpref", "-m", "infAP"],
    ]  # fmt: skip
    for options in option_sets:
        for fmt in ("table", "trec", "json", "csv"):
            add(
                f"cli/evaluate/{fmt}/{' '.join(options) or 'default'}",
                ["evaluate", "qrels.txt", "run.txt", *options, "--format", fmt],
            )
    for i, run in enumerate(("run_dense.txt", "run_rm3.txt", "ir_run.txt")):
        qrels = "ir_qrels.txt" if run == "ir_run.txt" else "qrels.txt"
        add(f"cli/evaluate/other/{i}", ["evaluate", qrels, run, "-q", "-m", "nDCG@10", "-m", "AP", "--format", "json"])
    add(
        "cli/evaluate/subtopics",
        [
            "evaluate",
            "ir_qrels.txt",
            "ir_run.txt",
            "--subtopics",
            "div_qrels.txt",
            "-q",
            "-m",
            "alpha-nDCG@10",
            "-m",
            "ERR-IA@10",
            "--dialect",
            "ndeval",
        ],
    )
    add(
        "cli/evaluate/subtopics_as_qrels",
        [
            "evaluate",
            "div_qrels.txt",
            "ir_run.txt",
            "--subtopics",
            "div_qrels.txt",
            "-m",
            "alpha-nDCG@20",
            "-m",
            "ERR-IA@20",
            "-m",
            "nDCG@10",
        ],
    )
    add("cli/evaluate/subtopic_file_alone", ["evaluate", "div_qrels.txt", "ir_run.txt", "-m", "nDCG@10"])
    # recommendation tables
    rec_sets = [
        ["--threshold", "4", "-m", "nDCG", "-m", "AP", "-m", "P", "-m", "HitRate", "-k", "10,20"],
        ["--threshold", "4", "-m", "nDCG", "-m", "AP", "-m", "P", "-m", "HitRate", "-k", "10,20", "--dialect",
         "daisyrec@1"],
        ["--threshold", "4", "-q", "-m", "nDCG@10", "-m", "AUC", "--dialect", "replay"],
        ["-m", "nDCG@10", "-m", "P@5"],
        ["--threshold", "4", "--train", "train.csv", "--catalog", "60", "-m", "Coverage@10", "-m", "Gini@10", "-m",
         "Entropy@10", "-m", "Novelty@10", "-m", "SelfInformation@10", "-m", "ARP@10", "-m", "LongTail@10", "-m",
         "ILD@10", "-m", "Serendipity@10", "-q"],
        ["--threshold", "4", "--train", "train.csv", "-m", "ILD(kind=feature_hamming)@10", "-m", "Unexpectedness@5",
         "--features", "features.csv", "--baseline", "base.txt", "--dialect", "rectools", "-q"],
        ["--threshold", "4", "--train", "train.csv", "-m", "AUC", "-m", "AUC@10", "--dialect", "elliot"],
        ["--threshold", "4", "-m", "Novelty@10"],
        ["--threshold", "4", "-m", "ILD(kind=feature_cosine)", "--train", "train.csv", "--features", "nope.csv"],
    ]  # fmt: skip
    for i, options in enumerate(rec_sets):
        for fmt in ("table", "json"):
            add(f"cli/evaluate/recs/{i}/{fmt}", ["evaluate", "truth.csv", "recs.csv", *options, "--format", fmt])
    add(
        "cli/evaluate/recs/columns",
        [
            "evaluate",
            "truth.csv",
            "recs_named.tsv",
            "--rec-cols",
            "u,i,s",
            "--truth-cols",
            "user_id,item_id,rating",
            "--threshold",
            "4",
            "-m",
            "nDCG@10",
            "--format",
            "csv",
        ],
    )
    add("cli/dialects/recs", ["dialects", "truth.csv", "recs.csv", "--threshold", "4", "-m", "AP@20", "-m", "nDCG@20"])
    # explain
    by_name = {spec.name: spec for spec in families}
    for spec in families:
        add(f"cli/explain/{spec.name}", ["explain", measure_for(spec) if spec.cutoff_required else spec.name])
    add("cli/explain/IPrec uncut", ["explain", "IPrec"])
    for d in dialects:
        for name in list(d.bindings)[:1] or ["AP"]:
            measure = measure_for(by_name[name]) if by_name[name].cutoff_required else name
            add(f"cli/explain/{measure}/dialect={d.key}", ["explain", measure, "--dialect", d.key])
    for args in (["AP(denom=k)@20"], ["nDCG(gain={1:1,2:3})@10", "-l", "2"], ["MAP", "--dialect", "lightgbm@4"],
                 ["ndcg_cut.10"], ["nDGC"], ["AP", "--dialect", "lightgbn"], ["AP", "--dialect", "ranx@0.30"],
                 ["P@5", "--dialect", "openrec@tf2"]):  # fmt: skip
        add(f"cli/explain/{' '.join(args)}", ["explain", *args])
    # dialects
    for fmt in ("table", "json", "csv"):
        add(f"cli/dialects/list/{fmt}", ["dialects", "--format", fmt])
        add(
            f"cli/dialects/example/{fmt}",
            ["dialects", "qrels.txt", "run.txt", "-m", "AP@10", "-m", "nDCG@10", "--format", fmt],
        )
    add("cli/dialects/example/l2", ["dialects", "qrels.txt", "run.txt", "-m", "AP", "-m", "P@5", "-l", "2", "-k", "5"])
    # compare
    runs = ["run.txt", "run_rm3.txt", "run_dense.txt"]
    for fmt in ("table", "markdown", "latex", "csv", "json"):
        add(
            f"cli/compare/{fmt}",
            [
                "compare",
                "qrels.txt",
                *runs,
                "-m",
                "nDCG@10",
                "-m",
                "AP",
                "-m",
                "P@5",
                "--test",
                "randomization",
                "--format",
                fmt,
            ],
        )
    for i, options in enumerate([["--all-pairs", "-t", "wilcoxon", "--correction", "bh"], ["--baseline", "2", "-c"],
                                 ["-t", "tukey", "--resamples", "2000"], ["--interval", "t", "--format", "json"],
                                 ["--missing", "drop", "--names", "a,b,c", "--format", "csv"],
                                 ["--dialect", "ranx", "-t", "sign", "--correct-across", "all"], ["--baseline", "x"],
                                 ["--format", "markdown", "-o", "report.md"],
                                 ["--format", "html", "-o", "report.html", "-m", "AP"]]):  # fmt: skip
        add(
            f"cli/compare/options/{i}",
            ["compare", "qrels.txt", *runs, "-m", "nDCG@10", "-m", "RR", *options],
            files=[options[options.index("-o") + 1]] if "-o" in options else [],
        )
    add("cli/compare/one_run", ["compare", "qrels.txt", "run.txt"])
    add(
        "cli/compare/recs",
        ["compare", "truth.csv", "recs.csv", "base.txt", "--threshold", "4", "-m", "nDCG@10", "--format", "csv"],
    )
    # bad input
    add("cli/bad/qrels_grade", ["evaluate", "bad_qrels.txt", "run.txt"])
    add("cli/bad/qrels_columns", ["evaluate", "bad_qrels5.txt", "run.txt"])
    add("cli/bad/run_score", ["evaluate", "qrels.txt", "bad_run.txt"])
    add("cli/bad/run_duplicate", ["evaluate", "qrels.txt", "dup_run.txt"])
    add("cli/bad/empty", ["evaluate", "empty.txt", "run.txt"])
    add("cli/bad/missing_file", ["evaluate", "qrels.txt", "nope.txt"])
    add("cli/bad/unknown_measure", ["evaluate", "qrels.txt", "run.txt", "-m", "nDGC@10"])
    add("cli/bad/bad_param", ["evaluate", "qrels.txt", "run.txt", "-m", "AP(denom=x)@5"])
    add("cli/bad/unknown_dialect", ["evaluate", "qrels.txt", "run.txt", "--dialect", "lightgbn"])
    add("cli/bad/dialect_version", ["evaluate", "qrels.txt", "run.txt", "--dialect", "lightgbm@3"])
    add("cli/bad/newer_dialect_version", ["evaluate", "qrels.txt", "run.txt", "--dialect", "ranx@0.30", "-m", "AP"])
    add("cli/bad/ties", ["evaluate", "qrels.txt", "run.txt", "--ties", "random"])
    add("cli/bad/depth", ["evaluate", "qrels.txt", "run.txt", "-M", "0"])
    add("cli/bad/format", ["evaluate", "qrels.txt", "run.txt", "--format", "xml"])
    add("cli/bad/cutoffs", ["evaluate", "qrels.txt", "run.txt", "-k", "x"])
    add("cli/bad/missing_args", ["evaluate", "qrels.txt"])
    add("cli/bad/explain_unknown", ["explain", "nosuch"])
    add("cli/bad/dialects_one_file", ["dialects", "qrels.txt"])
    # trec_eval
    for seed in range(30):
        files = [f"te{seed}_qrels.txt", f"te{seed}_run.txt"]
        for j, options in enumerate(TREC_EVAL_OPTIONS):
            if (seed + j) % 4 == 0:
                add(f"cli/trec_eval/{seed}/{' '.join(options) or 'default'}", ["trec_eval", *options, *files])
    for seed in range(6):
        jg = [f"jg{seed}.txt", f"te{seed}_run.txt"]
        for options in (
            ["-q", "-m", "qrels_jg"],
            ["-q", "-c", "-J", "-M3", "-mP_avgjg.1,2,30", "-mRprec_mult_avgjg.0.5,1,3"],
            ["-q", "-c", "-l2", "-m", "qrels_jg"],
        ):
            add(f"cli/trec_eval/jg/{seed}/{' '.join(options)}", ["trec_eval", *options, "-R", "qrels_jg", *jg])
        for fmt in ("prefs", "qrels_prefs"):
            files = [f"{fmt}{seed}.txt", f"{fmt}{seed}_run.txt"]
            for options in (["-q", "-c"], ["-q", "-c", "-M3"], ["-q", "-c", "-J", "-l2", "-m", "prefs"], ["-q"]):
                add(
                    f"cli/trec_eval/{fmt}/{seed}/{' '.join(options)}",
                    ["trec_eval", *options, "-m", "all_prefs", "-R", fmt, *files],
                )
    te0 = ["te0_qrels.txt", "te0_run.txt"]
    add("cli/trec_eval/zscores", ["trec_eval", "-q", "-Z", "zscores.txt", "-m", "map", "-m", "P.5", "-m", "ndcg", *te0])
    add("cli/trec_eval/example", ["trec_eval", "-q", "-m", "all_trec", "qrels.txt", "run.txt"])
    add(
        "cli/trec_eval/grammar",
        ["trec_eval", "-qcmP.5", "-M50", "-l2", *te0],
        ["trec_eval", *te0, "--query_eval_wanted", "--measure=ndcg_cut.5,10", "-M", "50"],
        ["trec_eval", "-m", "ndcg", "-m", "P.5", "-m", "P.10", "-m", "official", "-m", "map", *te0],
    )
    for i, args in enumerate([["-m", "nosuch"], ["-m", "all_prefs"], ["-R", "prefs"], ["-R", "xml"], ["-m", "yaap.2"],
                              ["-m", "G.x"], ["-m", "P.5,5"], ["-m", "utility.1,2"], ["-M", "x"], ["-x"],
                              ["-m", "map.3"], ["-h"], []]):  # fmt: skip
        add(f"cli/trec_eval/bad/{i}", ["trec_eval", *args, *(te0 if args and args != ["-h"] else [])])
    add(
        "cli/trec_eval/bad/prefs_cycle", ["trec_eval", "-m", "all_prefs", "-R", "prefs", "bad_prefs.txt", "one_run.txt"]
    )
    add("cli/trec_eval/bad/jg_twice", ["trec_eval", "-m", "qrels_jg", "-R", "qrels_jg", "bad_jg.txt", "one_run.txt"])
    add("cli/trec_eval/bad/map_from_prefs", ["trec_eval", "-m", "map", "-R", "prefs", "prefs0.txt", "prefs0_run.txt"])
    # learning to rank and the recommender experiment (when the shared data is there)
    if (work / "lr_train").exists():
        add("cli/ltr/lightgbm",
            ["ltr", "qrels", "lr_test", "-o", "lr_qrels.txt"],
            ["ltr", "train", "lr_train", "--valid", "lr_test", "--model", "lightgbm", "--rounds", "5", "--seed", "0",
             "-p", "num_threads=1", "-o", "lgb_model"],
            ["ltr", "predict", "lgb_model", "lr_test", "-o", "lgb_run.txt"],
            ["ltr", "evaluate", "lgb_model", "lr_test", "--dialect", "lightgbm", "-m", "nDCG@1", "-m", "nDCG@5"],
            ["evaluate", "lr_qrels.txt", "lgb_run.txt", "-m", "nDCG@5", "-m", "AP", "--dialect", "lightgbm"],
            files=["lr_qrels.txt", "lgb_run.txt", "lgb_model/rankwise-model.json"])  # fmt: skip
    if (work / "tfr_train.txt").exists():
        add("cli/ltr/torch",
            ["ltr", "qrels", "tfr_vali.txt", "-o", "tfr_qrels.txt"],
            ["ltr", "relabel", "tfr_vali.txt", "tfr_qrels.txt", "-o", "tfr_relabelled.txt", "--query-file"],
            ["ltr", "train", "tfr_train.txt", "--valid", "tfr_vali.txt", "--model", "linear", "--rounds", "3",
             "--seed", "0", "-o", "lin_model"],
            ["ltr", "predict", "lin_model", "tfr_vali.txt", "-o", "lin_run.txt"],
            ["ltr", "train", "tfr_train.txt", "--model", "xgboost", "--rounds", "3", "--seed", "0", "-p", "nthread=1",
             "-o", "xgb_model"],
            ["ltr", "evaluate", "xgb_model", "tfr_vali.txt", "-m", "nDCG@5", "-m", "AP"],
            files=["tfr_qrels.txt", "tfr_relabelled.txt", "tfr_relabelled.txt.query", "lin_run.txt",
                   "lin_model/rankwise-model.json", "xgb_model/rankwise-model.json"])  # fmt: skip
    if (work / "ml-100k.inter").exists():
        for model in ("popular", "ease"):
            add(
                f"cli/recsys-experiment/{model}",
                ["recsys-experiment", "ml-100k.inter", "--model", model, "--format", "csv"],
            )
        add(
            "cli/recsys-experiment/table",
            ["recsys-experiment", "ml-100k.inter", "--model", "popular", "-k", "10", "--threshold", "4"],
        )
    names = [job.name for job in jobs]
    duplicates = {n for n in names if names.count(n) > 1}
    assert not duplicates, duplicates
    return jobs


# ---------------------------------------------------------------------------------------------------------------
# dump and diff
def find_examples(package: Path) -> Path:
    direct = package / "examples"
    if (direct / "qrels.txt").exists():
        return direct
    for found in sorted(package.rglob("run_rm3.txt")):
        return found.parent
    raise SystemExit(f"differential: no bundled examples (qrels.txt, run.txt, ...) under {package}")


def check_subprocess_imports(package: Path, env: dict[str, str], work: Path) -> None:
    """The command line must run the same rankwise as this process."""
    done = subprocess.run([sys.executable, "-c", "import rankwise; print(rankwise.__file__)"], cwd=work, env=env,
                          capture_output=True, text=True, check=True)  # fmt: skip
    if Path(done.stdout.strip()).resolve().parent != package:
        raise SystemExit(f"differential: the command line imports {done.stdout.strip()}, this process {package}")


def dump(out: Path, only: str | None, jobs: int, require_prefix: str | None) -> int:
    import rankwise
    from rankwise.dialects import DIALECTS
    from rankwise.measures import FAMILIES

    package = Path(rankwise.__file__).resolve().parent
    print(f"differential: rankwise from {package}", file=sys.stderr)
    if require_prefix is not None and not str(package).startswith(str(Path(require_prefix).resolve())):
        raise SystemExit(f"differential: rankwise was imported from {package}, not under {require_prefix}")
    started = time.perf_counter()
    tmp = Path(tempfile.mkdtemp(prefix="rankwise-differential-"))
    replacements = [(str(tmp.resolve()), "<TMP>"), (str(tmp), "<TMP>"), (str(DATA.resolve()), "<DATA>"),
                    (str(DATA), "<DATA>")]  # fmt: skip
    names: set[str] = set()
    count = 0
    try:
        work = tmp / "cli"
        work.mkdir()
        examples = find_examples(package)
        write_cli_inputs(work, examples, DATA)
        env = cli_env(work)
        check_subprocess_imports(package, env, work)
        selected = [
            j for j in cli_jobs(work, list(FAMILIES), list(DIALECTS)) if only is None or j.name.startswith(only)
        ]
        with out.open("w", encoding="utf-8") as sink, concurrent.futures.ThreadPoolExecutor(max(1, jobs)) as pool:
            futures = [(job.name, pool.submit(run_job, job, work, env)) for job in selected]

            def write(name: str, output: Any) -> None:
                nonlocal count
                if name in names:
                    raise SystemExit(f"differential: case {name!r} twice")
                names.add(name)
                line = json.dumps({"case": name, "output": output}, ensure_ascii=False, sort_keys=False)
                for old, new in replacements:
                    line = line.replace(old, new)
                sink.write(line + "\n")
                count += 1

            groups: list[tuple[str, Callable[[], Iterator[Case]]]] = [
                ("meta", meta_cases),
                ("api/dialect", dialect_cases),
                ("api/family", family_cases),
                ("api/input", lambda: input_cases(tmp)),
                ("api/ml100k", lambda: ml100k_cases(DATA)),
                ("api/compare", lambda: compare_cases(examples)),
            ]
            for prefix, make in groups:
                if only is not None and not (prefix.startswith(only) or only.startswith(prefix)):
                    continue
                begun = time.perf_counter()
                for name, output in make():
                    if only is None or name.startswith(only):
                        write(name, output)
                print(f"differential: {prefix}: {time.perf_counter() - begun:.1f} s", file=sys.stderr)
            begun = time.perf_counter()
            for name, future in futures:
                write(name, future.result())
            print(
                f"differential: cli ({len(futures)} jobs) done {time.perf_counter() - begun:.1f} s after the API",
                file=sys.stderr,
            )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"differential: {count} cases written to {out} in {time.perf_counter() - started:.1f} s", file=sys.stderr)
    return 0


def load_dump(path: Path) -> dict[str, str]:
    cases: dict[str, str] = {}
    with path.open(encoding="utf-8") as source:
        for number, line in enumerate(source, 1):
            record = json.loads(line)
            if record["case"] in cases:
                raise SystemExit(f"{path}:{number}: case {record['case']!r} twice")
            cases[record["case"]] = json.dumps(record["output"], ensure_ascii=False)
    return cases


def differences(a: Any, b: Any, path: str = "") -> Iterator[tuple[str, Any, Any]]:
    """Paths where two outputs differ, depth first."""
    if isinstance(a, dict) and isinstance(b, dict):
        if list(a) != list(b) and set(a) == set(b):
            yield f"{path} (key order)", list(a), list(b)
        for key in dict.fromkeys([*a, *b]):
            if key not in a or key not in b:
                yield f"{path}/{key}", a.get(key, "<absent>"), b.get(key, "<absent>")
            else:
                yield from differences(a[key], b[key], f"{path}/{key}")
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            yield from differences(x, y, f"{path}[{i}]")
    elif a != b:
        yield path or "/", a, b


def show(value: Any, limit: int = 300) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[:limit] + f"... ({len(text)} characters)"


def diff(a_path: Path, b_path: Path, detail: int) -> int:
    a, b = load_dump(a_path), load_dump(b_path)
    only_a = [name for name in a if name not in b]
    only_b = [name for name in b if name not in a]
    differing = [name for name in a if name in b and a[name] != b[name]]
    print(f"{a_path}: {len(a)} cases; {b_path}: {len(b)} cases; {len(set(a) & set(b))} in both")
    for label, names in ((f"only in {a_path}", only_a), (f"only in {b_path}", only_b)):
        if names:
            print(f"{len(names)} cases {label}:")
            for name in names[:20]:
                print(f"  {name}")
            if len(names) > 20:
                print(f"  ... ({len(names) - 20} more)")
    print(f"{len(differing)} cases differ")
    for name in differing[:detail]:
        print(f"--- {name}")
        found = list(differences(json.loads(a[name]), json.loads(b[name])))
        for where, x, y in found[:5]:
            if isinstance(x, str) and isinstance(y, str) and ("\n" in x or "\n" in y):
                lines = list(difflib.unified_diff(x.splitlines(), y.splitlines(), "a", "b", lineterm="", n=1))
                print(f"  {where}:")
                print("\n".join(f"    {line}" for line in lines[:30]))
            else:
                print(f"  {where}:\n    a: {show(x)}\n    b: {show(y)}")
        if len(found) > 5:
            print(f"  ... ({len(found) - 5} more differences in this case)")
    if len(differing) > detail:
        print(f"... and {len(differing) - detail} more differing cases:")
        for name in differing[detail : detail + 50]:
            print(f"  {name}")
    return 1 if differing or only_a or only_b else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    dump_parser = commands.add_parser("dump", help="write every case's output to OUT (JSON lines)")
    dump_parser.add_argument("out", type=Path)
    dump_parser.add_argument("--only", help="only the cases whose name starts with this")
    dump_parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="command-line processes at once")
    dump_parser.add_argument("--require-prefix", help="refuse to run unless rankwise is imported from under this")
    diff_parser = commands.add_parser("diff", help="compare two dumps; exit status 1 when any case differs")
    diff_parser.add_argument("a", type=Path)
    diff_parser.add_argument("b", type=Path)
    diff_parser.add_argument("--detail", type=int, default=10, help="how many differing cases to show in detail")
    args = parser.parse_args(argv)
    if args.command == "dump":
        return dump(args.out, args.only, args.jobs, args.require_prefix)
    return diff(args.a, args.b, args.detail)


if __name__ == "__main__":
    sys.exit(main())
