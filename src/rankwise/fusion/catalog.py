"""The fusion methods and normalisations as data: name, parameters (type, default, the grid searched), formula,
reference, and whether a method needs training judgments. :mod:`.methods` and :mod:`.normalisations` compute what
these entries define; ``rankwise fuse --explain NAME`` prints them.

Notation: runs r = 1..R; for a document d of query q, s_r(d) is its normalised score in run r, p_r(d) its position
(0 for the first document; ties ordered by the tie policy), n_r(d) = 1 when run r retrieved d, |r| the length of run
r's list for q, N the number of candidates of q (documents any run retrieved), w_r the weights, and
n(d) = Σ_r n_r(d) the number of runs that retrieved d. A sum over r ∋ d runs over the runs that retrieved d.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from ..errors import RankwiseError

FOX = "Fox & Shaw, Combination of Multiple Searches, TREC-2 (1993)"
LEE = "Lee, Analyses of Multiple Evidence Combination, SIGIR 1997"
MOURAO = ("Mourão, Martins & Magalhães, Multimodal medical information retrieval with unsupervised rank fusion, "
          "CMIG 2015")
WU = "Wu & Crestani, Data fusion with estimated weights, CIKM 2002"
ASLAM = "Aslam & Montague, Models for Metasearch, SIGIR 2001"
LILLIS = ("Lillis, Zhang, Toolan, Collier, Leonard & Dunnion, Estimating probabilities for effective data fusion, "
          "SIGIR 2010")
RANX = "ranx 0.3 (ranx/fusion/{}.py)"


@dataclass(frozen=True)
class Param:
    """A method's parameter: ``kind`` (``int`` or ``float``), ``default``, the valid range [low, high], and the
    grid :func:`rankwise.optimize_fusion` searches: the values ``numerator / denominator`` for each numerator in
    ``grid`` (exact fractions, so no value is lost to float rounding)."""

    name: str
    kind: type
    default: float
    low: float
    high: float
    grid: range
    denominator: int = 1
    doc: str = ""

    def values(self) -> list[float]:
        """The grid searched, in increasing order."""
        return [self.kind(Fraction(i, self.denominator)) for i in self.grid]

    def check(self, value: object, method: str) -> float:
        """``value`` as this parameter's type, or a one-line error naming the method, the parameter and the range."""
        number = float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else math.nan
        ok = self.low <= number <= self.high and (self.kind is not int or number.is_integer())
        if not ok:
            kind = "an integer" if self.kind is int else "a number"
            raise RankwiseError(f"{method}: parameter {self.name} must be {kind} in [{self.low:g}, {self.high:g}], "
                                f"got {value!r}")  # fmt: skip
        return self.kind(number)  # type: ignore[no-any-return]


@dataclass(frozen=True)
class Method:
    """A fusion method. ``inputs``: ``scores`` (the normalised scores), ``positions`` (the order of each run only)
    or ``both``; ``weighted``: it takes one weight per run; ``trained``: it estimates probabilities from judgments
    (``qrels``) of training queries; ``missing``: what a run that did not retrieve a document contributes by
    default (ranx's choice); ``ranx``: the name ranx's ``fuse`` takes."""

    name: str
    title: str
    formula: str
    reference: str
    source: str
    inputs: str
    missing: str
    ranx: str
    params: tuple[Param, ...] = ()
    weighted: bool = False
    trained: bool = False
    aliases: tuple[str, ...] = ()
    note: str = ""

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        known = ", ".join(p.name for p in self.params) or "none"
        raise RankwiseError(f"{self.name}: unknown parameter {name!r}; its parameters: {known}")


@dataclass(frozen=True)
class Normalisation:
    """A per-run, per-query normalisation of scores (before fusing)."""

    name: str
    formula: str
    source: str
    aliases: tuple[str, ...] = ()
    inverts: bool = False
    """Whether it reverses the run's order (distances: the smallest score first)."""
    fills: bool = False
    """Whether it gives every candidate of the query a score in every run (Borda: missing documents share the
    points left)."""


GRID_K = Param("k", int, 60, 0, 1e9, range(10, 101, 10), doc="rank offset: larger k flattens the rank weights")
GRID_GAMMA = Param("gamma", float, 1.0, 0.0, 1e9, range(1, 101), 100, doc="exponent of n(d)")
GRID_SIGMA = Param("sigma", float, 0.01, 0.0, 1.0, range(1, 101), 100, doc="added to n(d) inside the log")
GRID_PHI = Param("phi", float, 0.8, 0.0, 1.0, range(1, 101), 100, doc="persistence: the chance to look one deeper")
GRID_SEGMENTS = Param("n_segments", int, 25, 1, 1e9, range(1, 101), doc="segments each list is cut into")
GRID_W = Param("w", int, 5, 0, 1e9, range(1, 101), doc="half-width of the window of positions averaged")
NO_SCORE = "contributes nothing (the sum runs over the runs that retrieved d)"

METHODS: tuple[Method, ...] = (
    Method("min", "CombMIN", "min_{r ∋ d} s_r(d)", FOX, RANX.format("comb_min"), "scores", NO_SCORE, "min",
           aliases=("combmin",)),
    Method("max", "CombMAX", "max_{r ∋ d} s_r(d)", FOX, RANX.format("comb_max"), "scores", NO_SCORE, "max",
           aliases=("combmax",)),
    Method("med", "CombMED", "median_{r ∋ d} s_r(d) (the mean of the two middle values for an even count)", FOX,
           RANX.format("comb_med"), "scores", NO_SCORE, "med", aliases=("combmed",)),
    Method("sum", "CombSUM", "Σ_r s_r(d), a missing score counting 0", FOX, RANX.format("comb_sum") +
           "; trectools/fusion.py combos(strategy='sum'); PyTerrier's `+`", "scores", "0", "sum",
           aliases=("combsum",)),
    Method("anz", "CombANZ", "Σ_{r ∋ d} s_r(d) / n(d)", FOX, RANX.format("comb_anz"), "scores", NO_SCORE, "anz",
           aliases=("combanz",)),
    Method("mnz", "CombMNZ", "Σ_{r ∋ d} s_r(d) · n(d)", FOX, RANX.format("comb_mnz"), "scores", NO_SCORE, "mnz",
           aliases=("combmnz",)),
    Method("gmnz", "CombGMNZ", "Σ_{r ∋ d} s_r(d) · n(d)^γ", LEE, RANX.format("comb_gmnz"), "scores", NO_SCORE,
           "gmnz", (GRID_GAMMA,), aliases=("combgmnz",),
           note="ranx has no default γ; rankwise's default 1 is CombMNZ"),
    Method("isr", "ISR", "Σ_{r ∋ d} 1/(p_r(d)+1)² · n(d)", MOURAO, RANX.format("isr"), "positions", NO_SCORE,
           "isr"),
    Method("log_isr", "Log_ISR", "Σ_{r ∋ d} 1/(p_r(d)+1)² · ln n(d)", MOURAO, RANX.format("log_isr"), "positions",
           NO_SCORE, "log_isr", aliases=("logisr",)),
    Method("logn_isr", "LogN_ISR", "Σ_{r ∋ d} 1/(p_r(d)+1)² · ln(n(d) + σ)", MOURAO, RANX.format("logn_isr"),
           "positions", NO_SCORE, "logn_isr", (GRID_SIGMA,), aliases=("lognisr",)),
    Method("rrf", "RRF", "Σ_{r ∋ d} 1/(k + p_r(d) + 1)",
           "Cormack, Clarke & Büttcher, Reciprocal rank fusion outperforms Condorcet and individual rank learning "
           "methods, SIGIR 2009", RANX.format("rrf") + "; trectools/fusion.py reciprocal_rank_fusion",
           "positions", NO_SCORE, "rrf", (GRID_K,), aliases=("reciprocal_rank_fusion",)),
    Method("rbc", "RBC", "Σ_{r ∋ d} (1 − φ) · φ^p_r(d)",
           "Bailey, Moffat, Scholer & Thomas, Retrieval Consistency in the Presence of Query Variations, SIGIR 2017",
           RANX.format("rbc") + "; trectools/fusion.py rank_biased_precision_fusion", "positions", NO_SCORE, "rbc",
           (GRID_PHI,), note="ranx has no default φ; rankwise's default 0.8 is trectools'"),
    Method("wmnz", "WMNZ", "Σ_{r ∋ d} s_r(d) · Σ_{r ∋ d} w_r", WU, RANX.format("wmnz"), "scores", NO_SCORE, "wmnz",
           weighted=True),
    Method("mixed", "Mixed", "Σ_{r ∋ d} w_r · s_r(d) · √n(d)", WU, RANX.format("mixed"), "scores", NO_SCORE,
           "mixed", weighted=True),
    Method("bayesfuse", "BayesFuse", "Σ_r o_r(p_r(d)), o_r(p) = ln(P_p / (1 − P_p)) the log-odds of relevance of "
           "run r's segment of positions holding p (segments 0-4, 5-9, 10-14, 15-19, 20-29, 30-99, 100-199, "
           "200-499, 500-999; P the mean precision of the segment over the training queries, 0 and 1 moved by "
           "0.001)", ASLAM, RANX.format("bayesfuse"), "positions",
           "ln(0.001/0.999) (also for positions past 999)", "bayesfuse", trained=True),
    Method("mapfuse", "MAPFuse", "Σ_{r ∋ d} MAP_r / (p_r(d) + 1), MAP_r run r's mean AP over the training queries",
           LILLIS, RANX.format("mapfuse"), "positions", NO_SCORE, "mapfuse", trained=True),
    Method("posfuse", "PosFuse", "Σ_{r ∋ d} P_r(p_r(d)), P_r(p) the share of training queries whose document at "
           "position p in run r is relevant (among those whose list reaches p; 0 past the longest)",
           LILLIS, RANX.format("posfuse"), "positions", NO_SCORE, "posfuse", trained=True),
    Method("probfuse", "ProbFuse", "Σ_{r ∋ d} P_r(k) / (k + 1), k = ⌊p_r(d) / ⌈|r| / S⌉⌋ the segment of d among S "
           "equal segments of run r's list, P_r(k) the mean over training queries of segment k's precision",
           "Lillis, Toolan, Collier & Dunnion, ProbFuse: a probabilistic approach to data fusion, SIGIR 2006",
           RANX.format("probfuse"), "positions", NO_SCORE, "probfuse", (GRID_SEGMENTS,), trained=True),
    Method("segfuse", "SegFuse", "Σ_{r ∋ d} P_r(k) · (s_r(d) + 1), k the segment of p_r(d) among the segments of "
           "sizes 10·2^(k−1) − 5 (0-4, 5-14, 15-34, ... up to 5114; 0 past it), P_r(k) the mean over training "
           "queries of segment k's relevant documents divided by its size",
           "Shokouhi, Segmentation of Search Engine Results for Effective Data-Fusion, ECIR 2007",
           RANX.format("segfuse"), "both", NO_SCORE, "segfuse", trained=True),
    Method("slidefuse", "SlideFuse", "Σ_{r ∋ d} mean of P_r(a..b), a = max(p − w, 0), b = min(p + w, |r| − 1), "
           "p = p_r(d), P_r as in PosFuse (0 past the longest training list; the mean divides by b − a + 1)",
           "Lillis, Zhang, Toolan, Collier, Leonard & Dunnion, Extending Probabilistic Data Fusion Using Sliding "
           "Windows, ECIR 2008", RANX.format("slidefuse"), "positions", NO_SCORE, "slidefuse", (GRID_W,), trained=True),
    Method("bordafuse", "BordaFuse", "Σ_r b_r(d), b_r(d) = N − p_r(d), or (N − |r| + 1)/2 when run r missed d",
           ASLAM, RANX.format("bordafuse"), "positions", "(N − |r| + 1)/2 (the points left, shared)", "bordafuse",
           aliases=("borda",)),
    Method("w_bordafuse", "Weighted BordaFuse", "Σ_r w_r · b_r(d), b_r as in BordaFuse", ASLAM,
           RANX.format("weighted_bordafuse"), "positions", "(N − |r| + 1)/2 (the points left, shared)",
           "w_bordafuse", weighted=True, aliases=("weighted_bordafuse",)),
    Method("condorcet", "Condorcet", "N − (place of d), documents placed by Copeland's count Σ_{e ≠ d} "
           "([V(d,e) > V(e,d)] + ½[V(d,e) = V(e,d)]), V(d,e) the runs ranking d above e (a run that missed e and "
           "retrieved d ranks d above; one that missed both abstains)",
           "Montague & Aslam, Condorcet Fusion for Improved Retrieval, CIKM 2002", RANX.format("condorcet"),
           "positions", "ranked below every retrieved document", "condorcet",
           note="where the majority preferences are a strict order (no cycle, no tie) this is the Condorcet order "
           "ranx's sort finds; with a cycle ranx's result depends on its comparison sort and on the iteration order "
           "of a Python set (hash-seeded), so rankwise uses Copeland's count, deterministic. O(N² · R) per query."),
    Method("w_condorcet", "Weighted Condorcet", "as Condorcet with V(d,e) = Σ of the weights of the runs ranking d "
           "above e", "Montague & Aslam, Condorcet Fusion for Improved Retrieval, CIKM 2002",
           RANX.format("weighted_condorcet"), "positions", "ranked below every retrieved document", "w_condorcet",
           weighted=True, aliases=("weighted_condorcet",)),
    Method("wsum", "Weighted sum", "Σ_r w_r · s_r(d), a missing score counting 0", "ranx (no paper)",
           RANX.format("wsum"), "scores", "0", "wsum", weighted=True, aliases=("weighted_sum",)),
)
"""Every fusion method, in ranx's order of its documentation."""

NORMALISATIONS: tuple[Normalisation, ...] = (
    Normalisation("min-max", "(s − min) / max(max − min, 1e-9)", "ranx/normalization/min_max_norm.py",
                  ("min_max", "minmax")),
    Normalisation("min-max-inverted", "(max − s) / max(max − min, 1e-9) (distances: the smallest first)",
                  "ranx/normalization/min_max_norm.py (invert=True)", ("min_max_inverted",), inverts=True),
    Normalisation("max", "s / max(max, 1e-9)", "ranx/normalization/max_norm.py"),
    Normalisation("sum", "(s − min) / max(Σ s − |r| · min, 1e-9)", "ranx/normalization/sum_norm.py"),
    Normalisation("zmuv", "(s − mean) / max(std, 1e-9), std over the list (population)",
                  "ranx/normalization/zmuv_norm.py", ("z-score", "zscore")),
    Normalisation("rank", "1 − p / |r|", "ranx/normalization/rank_norm.py"),
    Normalisation("borda", "1 − p / N; a document the run missed: 0.5 − (|r| − 1) / (2N), placed after the "
                  "retrieved ones", "ranx/normalization/borda_norm.py", fills=True),
    Normalisation("none", "s as given (trectools' combos, PyTerrier's `+`)", "trectools/fusion.py", ("raw",)),
)
"""Every normalisation (per run, per query, over the documents the run retrieved for the query)."""


def _key(name: str) -> str:
    return name.strip().lower().replace("-", "_").replace(" ", "_")


_METHODS = {_key(alias): m for m in METHODS for alias in (m.name, m.title, m.ranx, *m.aliases)}
_NORMS = {_key(alias): n for n in NORMALISATIONS for alias in (n.name, *n.aliases)}


def method(name: str) -> Method:
    """The method called ``name`` (any spelling: ``rrf``, ``RRF``, ``CombSUM``, ``comb-sum``; case and ``-``/``_``
    ignored), or a one-line error listing every method."""
    found = _METHODS.get(_key(name)) or _METHODS.get(_key(name).replace("comb_", "comb"))
    if found is None:
        raise RankwiseError(f"unknown fusion method {name!r}; choose one of {', '.join(m.name for m in METHODS)}")
    return found


def normalisation(name: str | None) -> Normalisation:
    """The normalisation called ``name`` (None: ``none``), or a one-line error listing every normalisation."""
    found = _NORMS.get(_key(name or "none"))
    if found is None:
        choices = ", ".join(n.name for n in NORMALISATIONS)
        raise RankwiseError(f"unknown normalisation {name!r}; choose one of {choices}")
    return found


def explain(name: str) -> str:
    """A method's or a normalisation's definition in words: formula, parameters with defaults and the grid
    searched, what a missing document contributes, reference and source."""
    try:
        m = method(name)
    except RankwiseError:
        n = normalisation(name)
        return f"{n.name} (normalisation)\n  formula: {n.formula}\n  source: {n.source}\n"
    lines = [f"{m.title} (fusion method `{m.name}`)", f"  formula: {m.formula}"]
    for p in m.params:
        grid = p.values()
        lines.append(f"  {p.name}: {p.doc}; default {p.default:g}; searched {grid[0]:g} to {grid[-1]:g} "
                     f"({len(grid)} values)")  # fmt: skip
    if m.weighted:
        lines.append("  weights: one per run (default equal); searched on the exact grid of steps 1/denominator")
    lines.append(f"  a run that missed d: {m.missing}")
    lines.append(f"  training judgments: {'needed (qrels=)' if m.trained else 'none'}")
    lines.append(f"  uses: the {'normalised scores and positions' if m.inputs == 'both' else m.inputs}")
    if m.note:
        lines.append(f"  note: {m.note}")
    lines += [f"  reference: {m.reference}", f"  source: {m.source}"]
    return "\n".join(lines) + "\n"


__all__ = ["METHODS", "NORMALISATIONS", "Method", "Normalisation", "Param", "explain", "method", "normalisation"]
