"""trec_eval measure names: reading them (``P.5,10``, ``ndcg_cut_10``, ``official``) and writing them back.

trec_eval prints measures in the fixed order of its measure table (``measures.c``), per query and then for
``all``; :func:`trec_order` reproduces that order so ``--format trec`` output diffs cleanly against trec_eval.
"""

from __future__ import annotations

import re

from ..errors import MeasureError
from ..wording import shorten
from .spec import Measure, check_cutoff_digits

_DEFAULT_RANK_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
_DEFAULT_RECALL_LEVELS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)

# trec_eval measures with cutoffs: trec name -> (rankwise family, default cutoffs)
CUTOFF_FAMILIES: dict[str, tuple[str, tuple[float, ...]]] = {
    "P": ("P", _DEFAULT_RANK_CUTOFFS),
    "recall": ("R", _DEFAULT_RANK_CUTOFFS),
    "ndcg_cut": ("nDCG", _DEFAULT_RANK_CUTOFFS),
    "map_cut": ("AP", _DEFAULT_RANK_CUTOFFS),
    "success": ("HitRate", (1, 5, 10)),
    "iprec_at_recall": ("IPrec", _DEFAULT_RECALL_LEVELS),
    "relative_P": ("RelP", _DEFAULT_RANK_CUTOFFS),
    "unj": ("Unjudged", (5, 10, 20)),
}
# trec_eval measures without cutoffs: trec name -> rankwise family
PLAIN_MEASURES: dict[str, str] = {
    "num_q": "NumQ",
    "num_ret": "NumRet",
    "num_rel": "NumRel",
    "num_rel_ret": "NumRelRet",
    "map": "AP",
    "gm_map": "GMAP",
    "Rprec": "Rprec",
    "bpref": "bpref",
    "recip_rank": "RR",
    "ndcg": "nDCG",
    "infAP": "infAP",
    "gm_bpref": "GMbpref",
    "utility": "Utility",
    "11pt_avg": "IPrecAvg",
    "binG": "binG",
    "G": "G",
    "dcg": "DCG",
    "ideal_dcg": "IDCG",
    "ndcg_rel": "nDCGRel",
    "Rndcg": "RnDCG",
    "yaap": "YAAP",
    "set_P": "SetP",
    "set_relative_P": "RelP",
    "set_recall": "R",
    "set_map": "SetMAP",
    "set_F": "F1",
    "num_nonrel_judged_ret": "NumNonRelJudgedRet",
    "rbp": "RBP",
    "rbp_resid": "RBPResidual",
}
# trec_eval's preference measures (-R prefs, -R qrels_prefs; m_prefs_*.c), in table order; the first three are counts.
PREFS_MEASURES = (
    "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret", "prefs_simp", "prefs_pair",
    "prefs_avgjg", "prefs_avgjg_Rnonrel", "prefs_simp_ret", "prefs_pair_ret", "prefs_avgjg_ret",
    "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp", "prefs_pair_imp", "prefs_avgjg_imp",
)  # fmt: skip
PREFS_COUNTS = frozenset(PREFS_MEASURES[:3])
# trec_eval's measures averaged over judgment groups (-R qrels_jg) -> the measure each averages.
JUDGMENT_GROUP_MEASURES = {"map_avgjg": "map", "P_avgjg": "P", "Rprec_mult_avgjg": "Rprec_mult"}
# Order of trec_eval's measure table (measures.c): measures print in this order, whatever the order of -m.
TABLE_ORDER = (
    "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
    "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "infAP", "gm_bpref", "Rprec_mult", "utility",
    "11pt_avg", "binG", "G", "dcg", "ideal_dcg", "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut", "map_cut",
    "relative_P", "success", "set_P", "set_relative_P", "set_recall", "set_map", "set_F",
    "num_nonrel_judged_ret", *PREFS_MEASURES, *JUDGMENT_GROUP_MEASURES, "yaap", "rbp", "rbp_resid", "unj",
)  # fmt: skip
# trec_eval's -m all_trec (measures.c trec_names), printed in TABLE_ORDER.
ALL_TREC = (
    "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank",
    "iprec_at_recall", "P", "relstring", "recall", "unj", "rbp", "rbp_resid", "infAP", "gm_bpref", "utility",
    "11pt_avg", "ndcg", "relative_P", "Rprec_mult", "success", "map_cut", "ndcg_cut", "ndcg_rel", "Rndcg", "binG",
    "G", "set_P", "set_recall", "set_relative_P", "set_map", "set_F", "num_nonrel_judged_ret",
)  # fmt: skip
# trec_eval's -m set: the measures of an unranked retrieved set.
SET_MEASURES = (
    "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P", "set_recall", "set_relative_P",
    "set_map", "set_F",
)  # fmt: skip
# trec_eval's -m all_prefs, -m prefs (its official preference measures) and -m qrels_jg.
ALL_PREFS = ("runid", "num_q", *PREFS_MEASURES)
PREFS_OFFICIAL = ("runid", "num_q", *PREFS_MEASURES[:6])
QRELS_JG = ("runid", "num_q", *JUDGMENT_GROUP_MEASURES)
# trec_eval measures rankwise does not compute (none left).
NOT_COMPUTED: frozenset[str] = frozenset()
OFFICIAL = (
    "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
    "recip_rank", "iprec_at_recall", "P",
)  # fmt: skip
# Measures trec_eval prints only for "all", never per query.
SUMMARY_ONLY = frozenset({"gm_map", "gm_bpref"})
RUNID = "runid"
NOT_PER_QUERY = frozenset({RUNID, "num_q", *SUMMARY_ONLY})
"""The trec_eval names with no per-query line under ``-q``: the geometric means (summary only), ``runid`` and
``num_q`` (whose print function for one query, ``te_print_single_meas_empty``, prints nothing)."""

# A cutoff list is made of numbers (``P_5``, ``P.5,10``, ``iprec_at_recall_0.10``, ``P_1e3`` too, refused later as
# not an integer): a name with any other character after the family (``P_IA@10``, ir_measures' intent-aware
# precision) is no trec_eval name.
_CUTOFFS = r"(?:([_.])([0-9.,eE+\-\s]+))?$"
_CUT_RE = re.compile(r"^(P|recall|ndcg_cut|map_cut|success|iprec_at_recall|relative_P|unj)" + _CUTOFFS)
_RPREC_MULT_RE = re.compile(r"^Rprec_mult" + _CUTOFFS)
_DEFAULT_RPREC_MULTS = (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)


def _cutoff_value(read: type, text: str, whole: str) -> float:
    check_cutoff_digits(text, whole)
    try:
        value = read(text)
    except ValueError:
        raise MeasureError(f"{shorten(whole)}: cutoff {shorten(text)!r} is not a number") from None
    return value


def parse_trec_name(text: str) -> list[Measure] | None:
    """Measures named by a trec_eval name, or None when ``text`` is not one.

    Accepts output names (``P_5``, ``ndcg_cut_10``, ``iprec_at_recall_0.10``), trec_eval ``-m`` syntax
    (``P.5,10``, ``ndcg_cut.10,20``), bare families with their default cutoffs (``P``, ``ndcg_cut``), the
    plain measures (``map``, ``ndcg``, ``recip_rank``, ...) and the ``official`` set (without ``runid``,
    which is not a number: see :data:`OFFICIAL`).
    """
    if text == "official":
        out: list[Measure] = []
        for name in OFFICIAL:
            if name != RUNID:
                out.extend(parse_trec_name(name) or [])
        return out
    if text in PLAIN_MEASURES:
        return [Measure(PLAIN_MEASURES[text])]
    mult = _RPREC_MULT_RE.match(text)
    if mult is not None:
        return [_rprec_mult(x) for x in _cutoff_list(mult[1], mult[2], _DEFAULT_RPREC_MULTS, float, text)]
    match = _CUT_RE.match(text)
    if match is None:
        return None
    trec_family, sep, rest = match.groups()
    family, defaults = CUTOFF_FAMILIES[trec_family]
    read = float if trec_family == "iprec_at_recall" else int
    return [Measure(family, cutoff=c) for c in _cutoff_list(sep, rest, defaults, read, text)]


def _cutoff_list(sep: str | None, rest: str | None, defaults: tuple[float, ...], read: type, text: str) -> list[float]:
    """The cutoffs of ``NAME``, ``NAME_x`` or ``NAME.x,y,...``: sorted, each once."""
    if rest is None:
        return list(defaults)
    if sep == "_":
        return [_cutoff_value(read, rest, text)]
    cutoffs = [_cutoff_value(read, part, text) for part in rest.split(",") if part]
    if not cutoffs:
        raise MeasureError(f"{text}: no cutoffs after '.'")
    return sorted(dict.fromkeys(cutoffs))


def _rprec_mult(x: float) -> Measure:
    """trec_eval's Rprec_mult_x: Rprec at c = floor(x·R + 0.9)."""
    return Measure("Rprec", params=(("mult", x),))


def trec_name(measure: Measure) -> str | None:
    """trec_eval's output name for ``measure`` (``P_5``, ``map``), or None when trec_eval has none."""
    if measure.name == "Rprec" and measure.params and measure.params[0][0] == "mult" and len(measure.params) == 1:
        return f"Rprec_mult_{measure.params[0][1]:.2f}"
    if measure.params:
        return None
    if measure.cutoff is None:
        for trec, family in PLAIN_MEASURES.items():
            if family == measure.name:
                return trec
        return None
    for trec, (family, _) in CUTOFF_FAMILIES.items():
        if family == measure.name:
            if trec == "iprec_at_recall":
                return f"{trec}_{measure.cutoff:.2f}"
            return f"{trec}_{measure.cutoff}"
    return None


def trec_order(measure: Measure) -> tuple[int, float]:
    """Sort key placing measures in trec_eval's printing order; measures without a trec name go last."""
    name = trec_name(measure)
    if name is None:
        return (len(TABLE_ORDER), 0.0)
    for i, root in enumerate(TABLE_ORDER):
        if name == root or (root in (*CUTOFF_FAMILIES, "Rprec_mult") and name.startswith(root + "_")):
            return (i, float(measure.cutoff or 0.0))
    return (len(TABLE_ORDER), 0.0)


def all_trec_names() -> list[str]:
    """Names accepted by :func:`parse_trec_name`, for suggestions and listings."""
    return ["official", *PLAIN_MEASURES, *CUTOFF_FAMILIES, "Rprec_mult"]
