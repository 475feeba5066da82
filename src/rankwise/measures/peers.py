"""Other libraries' own metric names, read as the rankwise measures those libraries compute.

A user porting a script writes the names of the library it used: ranx's ``ndcg_burges@10`` or ``rbp.95``,
ir_measures' ``nDCG(dcg=exp-log2)@10``, MS Recommenders' ``ndcg_at_k(k=10)`` or ``novelty``, torchmetrics'
``RetrievalNormalizedDCG(top_k=10)``. Each library's names are data here (:class:`PeerNames`): the name as the library
spells it, the rankwise measure it computes (its family and the parameters that make the difference; the rest comes
from the library's dialect, :mod:`rankwise.dialects`), how its arguments and cutoff are written, and, for a name
rankwise does not compute, why. A dialect carries its library's names (``--dialect ranx``); without one, such a name
is an error that names the dialect that reads it (:func:`peer_hint`).

Syntax read: ``NAME[.DIGITS][(ARG=VALUE,...)][@CUTOFF][-][-lREL]`` — ``rbp.95`` (ranx: p = 0.95), ``ndcg@10-l2``
(ranx: relevance level 2), ``ndcg@10-`` (XGBoost: a query without relevant rows scores 0), positional arguments
where the library takes them (RePlay's ``NDCG(10)``, LensKit's ``NDCG(10)``). String values may be quoted.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

ParamText = str | float | int


@dataclass(frozen=True)
class Arg:
    """How one argument of a library's metric becomes part of the rankwise measure.

    ``to``: the rankwise parameter it sets, ``cutoff``, or ``measure`` (its value picks another family, e.g.
    ir_measures' ``SetP(relative=True)`` is ``RelP``); ``values``: the library's value → rankwise's (empty: the value
    as written); ``index``: the position it fills in a list parameter (ir_measures' ``min_rel``/``max_rel`` fill
    ``scale``); ``why``: non-empty when rankwise does not take the argument, saying why."""

    to: str = ""
    values: Mapping[str, ParamText] = field(default_factory=dict)
    index: int | None = None
    why: str = ""
    switch: str = ""
    """When given, the family the measure becomes (ir_measures' ``NumRet(rel=1)`` is ``NumRelRet``)."""
    square_root: bool = False
    """The library's value is the square of rankwise's: trec_eval's set_F (ir_measures' ``SetF(beta=b)``) computes
    (b + 1)PR / (bP + R), rankwise's F1(beta=√b)."""


@dataclass(frozen=True)
class PeerName:
    """One metric name of a library.

    ``measure``: the rankwise measure it computes, in rankwise syntax (``nDCG(gain=exp2)``), None when rankwise does
    not compute it (``why`` says why); ``args``: its own arguments (beyond the library-wide ones); ``uncut``: the
    measure when written without a cutoff, if another (ranx's ``precision`` is SetP); ``cutoff``: the cutoff the
    library uses when none is written (MS Recommenders' k = 10); ``note``: what a user should know (shown by
    ``rankwise dialects NAME`` and in the evaluation's notes)."""

    name: str
    measure: str | None
    args: Mapping[str, Arg] = field(default_factory=dict)
    aliases: tuple[str, ...] = ()
    uncut: str | None = None
    cutoff: int | None = None
    note: str = ""
    why: str = ""


@dataclass(frozen=True)
class PeerNames:
    """A library's metric names, as its users write them.

    ``library``: the dialect name; ``title``: the library in words; ``source``: where the names come from (its
    registry, module or files); ``case``: whether names are matched in their case (ir_measures has both ``nDCG``
    and ``NDCG``; RecBole lowercases its config); ``args``: arguments every name takes (ir_measures' ``rel``,
    torchmetrics' ``top_k``); ``positional``: the argument a first positional value fills (RePlay's ``topk``);
    ``dot``: the parameter ``NAME.DIGITS`` sets, read as 0.DIGITS (ranx's ``rbp.95``); ``minus``: the parameter and
    value a trailing ``-`` sets (XGBoost's ``ndcg@10-``); ``rel_suffix``: whether ``-lN`` sets ``rel`` (ranx)."""

    library: str
    title: str
    source: str
    names: tuple[PeerName, ...]
    case: bool = True
    args: Mapping[str, Arg] = field(default_factory=dict)
    positional: str | None = None
    dot: str | None = None
    minus: tuple[str, str] | None = None
    rel_suffix: bool = False
    underscore_cutoff: bool = False
    """``NAME_K`` is ``NAME@K`` for the library's names (allRank's config: ``ndcg_5``, ``mrr_10``)."""

    @property
    def possessive(self) -> str:
        """``ranx's``, ``MS Recommenders'``."""
        return self.title + ("'" if self.title.endswith("s") else "'s")

    def find(self, name: str) -> PeerName | None:
        """The entry a name (as written, without arguments or cutoff) is, or None."""
        for entry in self.names:
            for spelled in (entry.name, *entry.aliases):
                if spelled == name or (not self.case and spelled.lower() == name.lower()):
                    return entry
        return None

    def respell(self, text: str) -> str:
        """``text`` with the library's own cutoff spelling written as rankwise's: with ``underscore_cutoff``, one of
        its names followed by ``_K`` becomes ``NAME@K`` (allRank splits ``ndcg_5`` at the ``_`` into the metric and
        an int cutoff: allrank/config.py:105-115 ``_parse_metrics``); anything else as given."""
        found = re.fullmatch(r"\s*([^\W\d]\w*?)_(\d+)\s*", text) if self.underscore_cutoff else None
        if found is None or self.find(found[1]) is None:
            return text
        return f"{found[1]}@{found[2]}"

    def rows(self) -> list[dict[str, str]]:
        """Each name as a record: the name (and its aliases), the rankwise measure it reads as (or ``not
        supported``), and the note or why."""
        out = []
        for entry in self.names:
            if entry.measure is None:
                means = "not supported"
            else:
                means = entry.measure + (f" (without a cutoff: {entry.uncut})" if entry.uncut else "")
                means += f" (cutoff {entry.cutoff} unless given)" if entry.cutoff is not None else ""
            args = [f"{k}" + ("" if not a.why else " (not supported)") for k, a in entry.args.items()]
            out.append({"name": " / ".join((entry.name, *entry.aliases)), "measure": means,
                        "arguments": ", ".join(args), "note": entry.why or entry.note})  # fmt: skip
        return out


PEER_RE = re.compile(
    r"^(?P<name>[^\W\d][\w\-]*?)(?:\.(?P<dot>\d+))?\s*(?:\((?P<args>.*)\))?\s*(?:@\s*(?P<cutoff>[0-9]*\.?[0-9]+))?"
    r"(?P<minus>-)?(?:-l(?P<rel>\d+))?$"
)


def _names(*entries: PeerName) -> tuple[PeerName, ...]:
    return entries


def _at_10(*pairs: tuple[str, str]) -> tuple[PeerName, ...]:
    """Names whose function computes at k = 10 unless given (MS Recommenders', rs_metrics')."""
    return tuple(PeerName(name, measure, cutoff=10) for name, measure in pairs)


def _unsupported(why: str, *names: str) -> tuple[PeerName, ...]:
    return tuple(PeerName(name, None, why=why) for name in names)


K = Arg("cutoff")
BOOL_YES_NO = {"True": "yes", "False": "no", "true": "yes", "false": "no"}
RATING_ERROR = "a rating-prediction or classification error, not a ranking measure"
JUDGED_ONLY = Arg(why="rankwise applies judged_only to the whole evaluation: -J (judged_only=True)")
IR_SCALE = {"min_rel": Arg("scale", index=0), "max_rel": Arg("scale", index=1)}

RANX = PeerNames(
    "ranx",
    "ranx",
    "ranx 0.3 ranx/meta/evaluate.py metric_switch and extract_metric_and_params (NAME@k, rbp.95, -lN)",
    _names(
        PeerName("hits", "HitRate(count=hits)", note="H_k, the relevant documents in the top k, averaged"),
        PeerName("hit_rate", "HitRate"),
        PeerName("precision", "P", uncut="SetP", note="without a cutoff: hits ÷ |run| (ranx/metrics/precision.py)"),
        PeerName("recall", "R"),
        PeerName("f1", "F1"),
        PeerName("r-precision", "Rprec", aliases=("r_precision",)),
        PeerName("mrr", "RR"),
        PeerName("map", "AP"),
        PeerName("dcg", "DCG"),
        PeerName("dcg_burges", "DCG(gain=exp2)"),
        PeerName("ndcg", "nDCG"),
        PeerName("ndcg_burges", "nDCG(gain=exp2)"),
        PeerName("bpref", "bpref"),
        PeerName("rbp", "RBP(gain=binary)", aliases=("rank_biased_precision",),
                 note="ranx weighs a relevant document by its grade: equal for 0/1 grades (rbp.95: p = 0.95)"),
    ),
    dot="p",
    rel_suffix=True,
)

IR_MEASURES = PeerNames(
    "ir_measures",
    "ir_measures",
    "ir_measures 0.4 ir_measures.measures.registry (names, aliases and SUPPORTED_PARAMS)",
    _names(
        PeerName("AP", "AP", aliases=("MAP",)),
        PeerName("AP_IA", "AP-IA", aliases=("MAP_IA",)),
        PeerName("Accuracy", "AUC(compare=rank)", note="ir_measures ranks in input order: give --ties input_order"),
        PeerName("BPM", "BPM", args={"T": Arg("T"), "K": K, **IR_SCALE}),
        PeerName("Bpref", "bpref", aliases=("BPref",)),
        PeerName("Compat", "Compat", args={"p": Arg("p"), "normalize": Arg("normalise", BOOL_YES_NO)},
                 note="ties by doc id ascending, as its compat provider: --dialect compat"),
        PeerName("ERR", "ERR", note="through gdeval (maximum grade 4): --dialect gdeval -c gives its query set"),
        PeerName("ERR_IA", "ERR-IA"),
        PeerName("INSQ", "INSQ", args={"T": Arg("T"), **IR_SCALE}, note="its cwl_eval provider: --dialect cwl_eval"),
        PeerName("INST", "INST", args={"T": Arg("T"), **IR_SCALE}, note="its cwl_eval provider: --dialect cwl_eval"),
        PeerName("IPrec", "IPrec", args={"recall": K}),
        PeerName("Judged", "Judged"),
        PeerName("RR", "RR", aliases=("MRR",)),
        PeerName("nDCG", "nDCG", aliases=("NDCG",),
                 args={"dcg": Arg("gain", {"log2": "linear", "exp-log2": "exp2"}), "gains": Arg("gain")}),
        PeerName("NERR8", "NERR8", args=IR_SCALE),
        PeerName("NERR9", "NERR9", args=IR_SCALE),
        PeerName("NERR10", "NERR10", args={"p": Arg("p"), **IR_SCALE}),
        PeerName("NERR11", "NERR11", args={"T": Arg("T"), **IR_SCALE}),
        PeerName("NRBP", "NRBP", args={"alpha": Arg("alpha"), "beta": Arg("beta")}),
        PeerName("nNRBP", "nNRBP", args={"alpha": Arg("alpha"), "beta": Arg("beta")}),
        PeerName("NumQ", "NumQ"),
        PeerName("NumRel", "NumRel"),
        PeerName("NumRelRet", "NumRelRet"),
        PeerName("NumRet", "NumRet", args={"rel": Arg("rel", switch="NumRelRet")},
                 note="NumRet(rel=r) is NumRelRet(rel=r)"),
        PeerName("P", "P", aliases=("Precision",)),
        PeerName("P_IA", "P-IA"),
        PeerName("R", "R", aliases=("Recall",)),
        PeerName("RBP", "RBP(p=0.8,gain=binary,horizon=1000)",
                 args={"p": Arg("p"), "rel": Arg(why="RBP's relevance level is the evaluation's: give -l r")},
                 note="its cwl_eval provider: binary gains normalised over 1000 ranks (--dialect cwl_eval)"),
        PeerName("Rprec", "Rprec", aliases=("RPrec",)),
        PeerName("SDCG", "SDCG", args={"dcg": Arg(why="SDCG's discount is log2 only in rankwise"), **IR_SCALE}),
        PeerName("SetAP", "SetMAP"),
        PeerName("SetF", "F1", args={"beta": Arg("beta", square_root=True)},
                 note="trec_eval's set_F beta b is β² of F_β: SetF(beta=b) is F1(beta=√b)"),
        PeerName("SetP", "SetP", args={"relative": Arg("measure", {"True": "RelP", "False": "SetP"})}),
        PeerName("SetRelP", "RelP", args={"relative": Arg("measure", {"True": "RelP", "False": "SetP"})}),
        PeerName("SetR", "R"),
        PeerName("StRecall", "StRecall"),
        PeerName("Success", "HitRate"),
        PeerName("alpha_DCG", "alpha-DCG", aliases=("α_DCG",), args={"alpha": Arg("alpha")}),
        PeerName("alpha_nDCG", "alpha-nDCG", aliases=("α_nDCG",), args={"alpha": Arg("alpha")}),
        PeerName("infAP", "infAP"),
        PeerName("nERR_IA", "nERR-IA"),
    ),
    args={"cutoff": K, "rel": Arg("rel"), "judged_only": JUDGED_ONLY},
)

TM_ARGS = {"top_k": K, "empty_target_action": Arg("empty", {"neg": "zero", "pos": "one", "skip": "skip"}),
           "ignore_index": Arg(why="drop the ignored rows from the run before evaluating"),
           "aggregation": Arg(why="rankwise averages queries by their mean", values={"mean": "mean"})}  # fmt: skip


def _torchmetrics(cls: str, fn: str, measure: str | None, **more: object) -> PeerName:
    return PeerName(cls, measure, aliases=(fn,), **more)  # type: ignore[arg-type]


TORCHMETRICS = PeerNames(
    "torchmetrics",
    "torchmetrics",
    "torchmetrics 1.9 torchmetrics.retrieval.__all__ and torchmetrics.functional.retrieval.__all__",
    _names(
        _torchmetrics("RetrievalMAP", "retrieval_average_precision", "AP"),
        _torchmetrics("RetrievalMRR", "retrieval_reciprocal_rank", "RR"),
        _torchmetrics("RetrievalPrecision", "retrieval_precision", "P",
                      args={"adaptive_k": Arg("denom", {"True": "retrieved", "False": "k"})}),
        _torchmetrics("RetrievalRecall", "retrieval_recall", "R"),
        _torchmetrics("RetrievalHitRate", "retrieval_hit_rate", "HitRate"),
        _torchmetrics("RetrievalNormalizedDCG", "retrieval_normalized_dcg", "nDCG"),
        _torchmetrics("RetrievalRPrecision", "retrieval_r_precision", "Rprec(universe=retrieved)"),
        _torchmetrics("RetrievalFallOut", "retrieval_fall_out", "FallOut",
                      args={"empty_target_action": Arg("no_nonrel", {"neg": "zero", "pos": "one", "skip": "skip"})}),
        _torchmetrics("RetrievalAUROC", "retrieval_auroc", "AUC", args={"max_fpr": Arg("max_fpr")}),
        _torchmetrics("RetrievalRecallAtFixedPrecision", "retrieval_recall_at_fixed_precision", "RecallAtPrecision",
                      args={"min_precision": Arg("min_precision"), "max_k": K}),
        _torchmetrics("RetrievalPrecisionRecallCurve", "retrieval_precision_recall_curve", None,
                      why="a curve (precision and recall at every k), not one value per query: ask P@k and R@k"),
    ),
    args=TM_ARGS,
)

SKLEARN = PeerNames(
    "sklearn",
    "scikit-learn",
    "scikit-learn 1.9 sklearn.metrics (its ranking functions, a query as one sample)",
    _names(
        PeerName("ndcg_score", "nDCG", args={"k": K, "ignore_ties": Arg(why="ties are a policy: --ties input_order")}),
        PeerName("dcg_score", "DCG", args={"k": K, "log_base": Arg("log_base"),
                                           "ignore_ties": Arg(why="ties are a policy: --ties input_order")}),
        PeerName("average_precision_score", "AP"),
        PeerName("label_ranking_average_precision_score", "AP(empty=one)",
                 note="= average_precision_score per query; a query without a relevant document scores 1"),
        PeerName("roc_auc_score", "AUC", args={"max_fpr": Arg("max_fpr")}),
        PeerName("coverage_error", "CoverageError"),
        PeerName("label_ranking_loss", "LabelRankingLoss"),
        PeerName("top_k_accuracy_score", None, why="multiclass: one true label per sample, not a ranking of "
                                                   "judged documents"),
        *_unsupported("a curve or its points, not one value per query: AUC, AP and P@k/R@k give its summaries",
                      "roc_curve", "precision_recall_curve", "det_curve", "auc", "confusion_matrix_at_thresholds",
                      "metric_at_thresholds"),
    ),
)

LIGHTGBM = PeerNames(
    "lightgbm",
    "LightGBM",
    "LightGBM 4 docs/Parameters.rst (metric aliases; eval_at) and src/metric/rank_metric.hpp, map_metric.hpp",
    _names(
        PeerName("ndcg", "nDCG", aliases=("lambdarank", "rank_xendcg", "xendcg", "xe_ndcg", "xe_ndcg_mart",
                                          "xendcg_mart")),
        PeerName("map", "AP", aliases=("mean_average_precision",)),
    ),
    case=False,
)

XGBOOST = PeerNames(
    "xgboost",
    "XGBoost",
    "XGBoost 3 src/metric/rank_metric.cc (ndcg, map, pre; NAME@n, a trailing '-')",
    _names(
        PeerName("ndcg", "nDCG"),
        PeerName("map", "AP"),
        PeerName("pre", "P", note="precision at n over the group's rows"),
        PeerName("auc", None, why="XGBoost's auc over ranking groups is a pairwise objective's metric, not compared "
                                  "with rankwise's AUC"),
        PeerName("aucpr", None, why="the area under the precision-recall curve is not a rankwise measure"),
    ),
    minus=("empty", "zero"),
)

RECBOLE = PeerNames(
    "recbole",
    "RecBole",
    "RecBole 1.2 recbole/evaluator/metrics.py (metric classes; results keyed NAME@k in lower case)",
    _names(
        PeerName("Hit", "HitRate"),
        PeerName("MRR", "RR"),
        PeerName("MAP", "AP"),
        PeerName("Recall", "R"),
        PeerName("NDCG", "nDCG"),
        PeerName("Precision", "P"),
        PeerName("GAUC", "AUC"),
        PeerName("ItemCoverage", "Coverage"),
        PeerName("AveragePopularity", "ARP"),
        PeerName("GiniIndex", "Gini"),
        PeerName("ShannonEntropy", "Entropy"),
        PeerName("TailPercentage", "LongTail"),
        PeerName("AUC", None, why="RecBole's AUC is a value metric over labelled rows of a CTR task, not over "
                                  "ranked test items (its GAUC is rankwise's AUC)"),
        *_unsupported(RATING_ERROR, "MAE", "RMSE", "LogLoss"),
    ),
    case=False,
)

MS_RECOMMENDERS = PeerNames(
    "ms_recommenders",
    "MS Recommenders",
    "recommenders 1.2 recommenders/evaluation/python_evaluation.py (its public functions; k = 10 unless given)",
    _names(
        *_at_10(("precision_at_k", "P"), ("recall_at_k", "R"), ("ndcg_at_k", "nDCG"), ("map_at_k", "AP")),
        PeerName("map", "AP(denom=R)", note="AP over the whole list ÷ the user's relevant items"),
        PeerName("auc", "AUC"),
        PeerName("catalog_coverage", "Coverage"),
        PeerName("distributional_coverage", "Entropy"),
        PeerName("novelty", "SelfInformation", note="MS Recommenders' novelty is self-information, -log2 of the "
                                                    "item's share of interactions (RePlay's Novelty is UnseenShare)"),
        PeerName("diversity", "ILD", aliases=("user_diversity",)),
        PeerName("serendipity", "Serendipity", aliases=("user_serendipity",)),
        PeerName("r_precision_at_k", None, why="Rprec over the top k (H_min(k,R) ÷ R): Rprec with -M k (depth=k) "
                                               "for the whole evaluation"),
        PeerName("historical_item_novelty", None, why="a value per item, not per list"),
        PeerName("user_item_serendipity", None, why="a value per (user, item), not per list"),
        *_unsupported(RATING_ERROR, "rmse", "mae", "rsquared", "exp_var", "logloss"),
    ),
    args={"k": K, "threshold": Arg(why="relevancy_method='by_threshold' is not read: give the top-k lists"),
          "relevancy_method": Arg(why="give the top-k lists (relevancy_method=None)", values={"top_k": "top_k"})},
)

REPLAY = PeerNames(
    "replay",
    "RePlay",
    "replay-rec 0.22 replay.metrics.__all__ (classes take topk; results keyed NAME@k)",
    _names(
        PeerName("HitRate", "HitRate"),
        PeerName("Precision", "P"),
        PeerName("Recall", "R"),
        PeerName("MAP", "AP"),
        PeerName("NDCG", "nDCG"),
        PeerName("MRR", "RR"),
        PeerName("RocAuc", "AUC"),
        PeerName("Coverage", "Coverage"),
        PeerName("Novelty", "Novelty"),
        PeerName("Surprisal", "SelfInformation"),
        PeerName("Unexpectedness", "Unexpectedness"),
        PeerName("CategoricalDiversity", None, why="needs item categories, which rankwise does not read"),
    ),
    args={"topk": K},
    positional="topk",
)

RECTOOLS = PeerNames(
    "rectools",
    "RecTools",
    "rectools 0.19 rectools.metrics.__all__ (classes take k)",
    _names(
        PeerName("Precision", "P", args={"r_precision": Arg("denom", {"True": "min_k_R", "False": "k"})}),
        PeerName("Recall", "R"),
        PeerName("F1Beta", "F1", args={"beta": Arg("beta")}),
        PeerName("HitRate", "HitRate"),
        PeerName("MAP", "AP", args={"divide_by_k": Arg("denom", {"True": "k", "False": "R"})}),
        PeerName("NDCG", "nDCG", args={"log_base": Arg("log_base"),
                                       "divide_by_achievable": Arg("ideal", {"True": "sorted", "False": "k_ones"})}),
        PeerName("MRR", "RR"),
        PeerName("CatalogCoverage", None, why="the number of items recommended (normalize: its share) is not "
                                              "compared with rankwise's Coverage"),
        PeerName("MeanInvUserFreq", "SelfInformation"),
        PeerName("IntraListDiversity", "ILD"),
        PeerName("AvgRecPopularity", "ARP"),
        PeerName("Serendipity", "Serendipity"),
        *_unsupported("a classification count over the whole catalogue, not a ranking measure", "Accuracy", "MCC"),
        *_unsupported("a partial AUC over the top k is not a rankwise measure", "PartialAUC", "PAP"),
        *_unsupported("compares two models' lists or counts lists, not a ranking measure", "Intersection",
                      "SufficientReco", "UnrepeatedReco", "CoveredUsers"),
    ),
    args={"k": K, "debias_config": Arg(why="debiasing of the test interactions is not done by rankwise")},
)

RS_METRICS = PeerNames(
    "rs_metrics",
    "rs_metrics",
    "rs_metrics 0.6 rs_metrics/metrics.py (functions; k = 10 unless given)",
    _names(
        *_at_10(("ndcg", "nDCG"), ("hitrate", "HitRate"), ("precision", "P"), ("recall", "R"), ("mrr", "RR"),
                ("mapr", "AP"), ("popularity", "ARP"), ("surprisal", "SelfInformation")),
        PeerName("coverage", "Coverage"),
        PeerName("a_ndcg", None, why="aspect nDCG needs item aspects (rankwise's alpha-nDCG reads subtopic "
                                     "judgments)"),
    ),
    args={"k": K, "apply_mean": Arg(why="per-user values: --per-query", values={"True": "True"})},
)

CATALOGUE = Arg(why="the catalogue is data: catalog= (--catalog N)")
REFERENCE = Arg(why="the reference lists are data: baseline= (--baseline RUN)")
LENSKIT = PeerNames(
    "lenskit",
    "LensKit",
    "lenskit 2025.8 lenskit.metrics.__all__ (classes take n, or k)",
    _names(
        PeerName("NDCG", "nDCG"),
        PeerName("DCG", "DCG"),
        PeerName("Precision", "P"),
        PeerName("Recall", "R"),
        PeerName("RecipRank", "RR"),
        PeerName("Hit", "HitRate"),
        PeerName("RBP", None, why="LensKit's RBP (patience 0.85, optional normalisation) is not compared with "
                                  "rankwise's RBP"),
        PeerName("ListGini", "Gini", args={"items": CATALOGUE}),
        PeerName("ExposureGini", "Gini(weight=geometric)",
                 args={"items": CATALOGUE, "weight": Arg(why="GeometricRankWeight(p) is Gini(weight=geometric,p=p)")}),
        PeerName("MeanPopRank", "ARP(scale=quantile)",
                 args={"data": Arg(why="the training interactions are data: train= (--train FILE)"),
                       "count": Arg("popularity")}),
        *_unsupported("a popularity or exposure statistic rankwise does not compute", "entropy",
                      "rank_biased_entropy"),
        *_unsupported(RATING_ERROR, "RMSE", "MAE"),
        *_unsupported("a count, not a measure", "ListLength", "TestItemCount"),
        PeerName("rank_biased_overlap", "RBO", aliases=("RBO",), cutoff=10, args={
            "reference": REFERENCE, "weight": Arg(why="GeometricRankWeight(p) is RBO(p=p); no other weight")},
                 note="the reranked list is the run; the reference, the baseline's list (baseline=, --baseline RUN)"),
        PeerName("least_item_promoted", "LIP", aliases=("LIP",), cutoff=10, args={"reference": REFERENCE},
                 note="the reranked list is the run; the reference, the baseline's list (baseline=, --baseline RUN)"),
    ),
    args={"n": K, "k": K},
    positional="n",
)

ELLIOT = PeerNames(
    "elliot",
    "Elliot",
    "elliot 0.3.1 elliot/evaluation/metrics/ (the names its YAML configuration takes)",
    _names(
        PeerName("nDCG", "nDCG"),
        PeerName("Precision", "P"),
        PeerName("Recall", "R"),
        PeerName("MAP", "AP"),
        PeerName("MRR", "RR"),
        PeerName("HR", "HitRate"),
        PeerName("F1", "F1"),
        PeerName("GAUC", "AUC", note="Elliot's AUC is AUC(mean=pooled); AUC keeps rankwise's name (GAUC here)"),
        PeerName("LAUC", "AUC", note="LAUC is AUC@k"),
        PeerName("ItemCoverage", "Coverage"),
        PeerName("ARP", "ARP"),
        PeerName("APLT", "LongTail"),
        PeerName("ACLT", "LongTail(count=yes)"),
        PeerName("PopRSP", "RSP(groups=popularity)"),
        PeerName("PopREO", "REO(groups=popularity)"),
        PeerName("RSP", "RSP", note="its clustering_file is item_groups= (--item-groups FILE:COLUMN)"),
        PeerName("REO", "REO", note="its clustering_file is item_groups= (--item-groups FILE:COLUMN)"),
        PeerName("ItemMADranking", "ItemMAD(gain=ranking)",
                 note="its clustering_file is item_groups= (--item-groups FILE:COLUMN)"),
        PeerName("ItemMADrating", "ItemMAD(gain=rating)",
                 note="its clustering_file is item_groups= (--item-groups FILE:COLUMN)"),
        *_unsupported("one value per (user group, item group) pair, not one number: rankwise.bias_disparity "
                      "(rankwise bias-disparity)", "BiasDisparityBD", "BiasDisparityBR", "BiasDisparityBS"),
        *_unsupported("not a measure rankwise computes", "nDCGRendle2020", "MAR", "EFD", "EPC", "UserCoverage",
                      "Gini", "SEntropy", "ExtendedEPC"),
    ),
)

EXPEVAL = PeerNames(
    "expeval",
    "expeval (Diaz et al., CIKM 2020)",
    "diazf/expeval 69ab070: the names expeval.py prints (metrics.py Difference, Disparity, Relevance)",
    _names(PeerName("difference", "EE-L"), PeerName("disparity", "EE-D"), PeerName("relevance", "EE-R")),
)

TREC_FAIR = PeerNames(
    "trec_fair",
    "TREC Fair Ranking 2022, Task 1 (wptrec)",
    "fair-trec/trec2022-fair-public 6fd105f: the columns AWRFMetric returns (wptrec/metrics/awrf.py:146-150)",
    _names(PeerName("nDCG", "nDCG", cutoff=500,
                    note="the track's nDCG: binary utility, ranks 1 and 2 undiscounted, ideal over min(500, R)"),
           PeerName("AWRF", "AWRF", cutoff=500),
           PeerName("Score", "nDCG-AWRF", cutoff=500, note="nDCG × AWRF, the track's score")),
)

ALLRANK = PeerNames(
    "allrank",
    "allRank",
    "allRank 1.4.3 allrank/models/metrics.py (ndcg, dcg, mrr; its config names them NAME_K, e.g. ndcg_5, read as "
    "ndcg@5) and allrank/config.py:105-115 _parse_metrics",
    _names(
        PeerName("ndcg", "nDCG", note="allRank's config writes ndcg_5 for ndcg@5 (both are read)"),
        PeerName("dcg", "DCG"),
        PeerName("mrr", "RR", note="allRank finds the first document with the slate's largest label: RR for 0/1 "
                                   "labels (see the dialect's known bugs)"),
    ),
    case=False,
    underscore_cutoff=True,
)

PEERS: tuple[PeerNames, ...] = (RANX, IR_MEASURES, TORCHMETRICS, SKLEARN, LIGHTGBM, XGBOOST, RECBOLE,
                                MS_RECOMMENDERS, REPLAY, RECTOOLS, RS_METRICS, LENSKIT, ELLIOT, EXPEVAL,
                                TREC_FAIR, ALLRANK)  # fmt: skip
"""Every library whose names rankwise reads (each is carried by its dialect)."""


def peer_names(library: str) -> PeerNames | None:
    """The names of the library a dialect is named for, or None."""
    return next((p for p in PEERS if p.library == library), None)


def peer_hint(text: str) -> str:
    """For a name rankwise does not know that is another library's: ``; `hit_rate` is ranx's name: use --dialect
    ranx, or HitRate`` (empty when no library has it). Matched in the case each library matches names."""
    parts = PEER_RE.match(text.strip())
    if parts is None:
        return ""
    name = parts["name"]
    found: list[tuple[PeerNames, PeerName]] = [(p, e) for p in PEERS if (e := p.find(name)) is not None]
    if not found:
        return ""
    supported = [(p, e) for p, e in found if e.measure is not None]
    if not supported:
        p, e = found[0]
        return f"; `{name}` is {p.possessive} name for what rankwise does not compute: {e.why}"
    if len(supported) == 1:
        p, e = supported[0]
        return f"; `{name}` is {p.possessive} name: use --dialect {p.library}, or {e.measure}"
    libraries = ", ".join(f"{p.library} ({e.measure})" for p, e in supported)
    return f"; `{name}` is a name of {libraries}: use --dialect NAME"
