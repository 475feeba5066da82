"""The dialect catalog: each library's conventions as data, with the source each binding follows.

To add a dialect: append a :class:`Dialect` here and a test in ``tests/dialects/test_dialects.py`` that fails if its
binding changes (against the real library where it installs, else hand-computed from its source).
"""

from __future__ import annotations

from ..measures import peers
from .spec import REL_LEVEL, Dialect

REPLAY_AUC = {"compare": "rank", "one_class": "replay"}
"""RePlay's RocAuc: positions in the top k, 0 without a hit, 1 without a negative."""
MS_AUC = {"mean": "pooled", "unjudged": "skip"}
"""MS Recommenders' auc: scikit-learn on the inner join of truth and predictions, all users pooled."""

BEYOND_QUERIES = {name: "run" for name in ("Coverage", "Gini", "Entropy", "Novelty", "SelfInformation", "ARP",
                                            "LongTail", "ILD", "Serendipity", "Unexpectedness")}
"""The libraries compute the beyond-accuracy measures from the recommendations (and training data) alone, without
the ground truth: every user with a list counts (RecBole's lists are its test users' only, so it keeps its own)."""
REPLAY_BEYOND = {"Coverage": {"over": "train", "count": "known"},
                 "SelfInformation": {"normalise": "yes", "divide": "k"}}  # fmt: skip
"""RePlay Coverage (÷ training items, only those counted) and Surprisal (÷ log2 N, ÷ k)."""
MS_BEYOND = {"Coverage": {"over": "train"},
             "SelfInformation": {"popularity": "interactions", "cold": "zero", "mean": "rows"}}  # fmt: skip
"""MS Recommenders catalog_coverage (÷ training items) and novelty (every recommended row pooled)."""

SLATE_NDCG = {"gain": "exp2", "universe": "retrieved", "empty": "one"}
"""nDCG of the learning-to-rank libraries (LightGBM, XGBoost, allRank): 2^l − 1 gains, the ideal over the query's
own rows, a query without a relevant row scoring 1."""

SLATE_POLICIES = {"ties": "input_order", "queries": "intersection"}
"""The learning-to-rank libraries' policies (LightGBM, XGBoost, allRank): a query's rows in the order given (their
sorts are stable), only queries with both rows and labels."""

SLATE_AP = {"denom": "min_k_R", "universe": "retrieved", "empty": "one"}
"""MAP of LightGBM and XGBoost: ÷ min(k, R) over the query's own rows, a query without a relevant row scoring 1."""

DIALECTS: tuple[Dialect, ...] = (
    Dialect(
        "trec_eval",
        ("10",),
        "10",
        "NIST trec_eval: rankwise's defaults",
        "usnistgov/trec_eval v10: m_*.c, form_res_rels.c (ties: docno descending)",
        "tests/trec_eval/test_trec_eval_differential.py (via pytrec_eval, float32-representable scores)",
    ),
    Dialect(
        "pytrec_eval",
        ("0.5",),
        "pytrec-eval-terrier 0.5",
        "trec_eval 9 inside Python: scores stored as float32, old recall rounding for iprec_at_recall",
        "cvangysel/pytrec_eval src/pytrec_eval.cpp (float scores), trec_eval 9 m_iprec_at_recall.c",
        "tests/dialects/test_dialects.py against pytrec-eval-terrier with scores that tie only in float32",
        policies={"scores": "float32"},
        bindings={"IPrec": {"round": "v9"}, "IPrecAvg": {"round": "v9"}},
    ),
    Dialect(
        "ir_measures",
        ("0.4", "0.3"),
        "0.3–0.4",
        "ir_measures: trec_eval measures through its pytrec_eval provider; every judged query is scored (a query "
        "missing from the run scores 0)",
        "terrierteam/ir_measures ir_measures/providers/pytrec_eval_provider.py (judged queries missing from the run "
        "are filled with 0)",
        "tests/dialects/test_dialects_ir_measures.py against ir_measures 0.4 itself (calc_aggregate and iter_calc)",
        policies={"scores": "float32", "queries": "qrels"},
        bindings={"IPrec": {"round": "v9"}, "IPrecAvg": {"round": "v9"}},
        empty_input="data",
        caveats=(
            "ir_measures computes INST, INSQ, BPM, NERR8-11 and SDCG (and RBP(rel=...)) through its cwl_eval provider "
            "and Compat through its compat provider, whose tie orders differ: use --dialect cwl_eval or compat",
        ),
        names=peers.IR_MEASURES,
    ),
    Dialect(
        "cwl_eval",
        ("1.0",),
        "cwl-eval 1.0, as ir_measures 0.4's cwl_eval provider runs it",
        "cwl_eval's C/W/L measures: tied scores in input order, every judged query scored (missing from the run: 0), "
        "RBP with binary gains normalised over 1000 ranks, AP ÷ the relevant documents retrieved",
        "ireval/cwl cwl/ruler/measures/*.py (c_vector; cwl_ap.py: W_i ∝ Σ_{j≥i} g_j / j), cwl_metrics.py (W over "
        "max_n = 1000 ranks), ranking.py (unjudged documents gain 0); terrierteam/ir_measures "
        "ir_measures/providers/cwl_eval.py (grades clipped to [min_rel, max_rel] and scaled to [0, 1]; the run sorted "
        "by score, stable)",
        "tests/measures/test_user_model_measures.py against ir_measures' cwl_eval provider and cwl_eval's own main() "
        "per "
        "query, on random runs with ties and graded qrels",
        policies={"ties": "input_order", "queries": "qrels"},
        bindings={"RBP": {"gain": "binary", "horizon": 1000}, "AP": {"denom": "hits"}},
        empty_input="data",
        known_bugs=(
            "BPM-Dynamic (BPMDCWLMetric): the patience step hc is added to T after the goal's loop has ended, so it "
            "has no effect and K stays fixed; rankwise moves K by hc as Zhang et al. define it: hc=0 is cwl_eval's "
            "BPM-Dynamic for any hc",
        ),
        caveats=(
            "cwl_eval run on a file reads each query's documents in the file's line order, whatever their scores, "
            "and scores every query of the run; ir_measures sorts them by score (stable) and scores the judged "
            "queries: the same values for a file sorted by score",
            "ir_measures' RBP(rel=r) through cwl_eval is RBP(gain=binary) with rel_level r (-l r)",
            "cwl_eval reads the first 1000 documents of a ranking: on longer rankings give -M 1000 (depth=1000) for "
            "P, RR and AP (the C/W/L measures' horizon is 1000 already)",
        ),
    ),
    Dialect(
        "compat",
        ("0.4",),
        "ir_measures 0.4's compat provider",
        "Compat as ir_measures computes it: tied scores by doc id ascending, every judged query scored",
        "terrierteam/ir_measures ir_measures/providers/compat_provider.py (compatibility: the run sorted by docno, "
        "then by score descending, stable; the ideal by grade descending, then by run score)",
        "tests/measures/test_user_model_measures.py against ir_measures' compat provider per query, on random runs "
        "with ties",
        policies={"ties": "docno_asc", "queries": "qrels"},
        empty_input="data",
        caveats=(
            "the ideal ranking: ir_measures orders documents of equal grade by their run score, an unretrieved one "
            "scoring 0, then in the qrels' order; rankwise in the ranking's order, unretrieved ones after them. The "
            "two agree when scores are positive and the qrels list each query's documents in doc id order",
        ),
    ),
    Dialect(
        "ranx",
        ("0.3",),
        "0.3",
        "ranx: -l also removes judgments below the level before nDCG; query sets made comparable; its precision "
        "without a cutoff (hits ÷ |run|, an empty run 0) is SetP",
        "AmenRa/ranx ranx/metrics/ndcg.py, ranx/metrics/precision.py:12-17, ranx/meta/evaluate.py (make_comparable)",
        "tests/dialects/test_dialects.py against ranx on tie-free runs (ranx orders tied scores by an unstable sort)",
        policies={"queries": "qrels"},
        bindings={"nDCG": {"rel": REL_LEVEL}, "DCG": {"rel": REL_LEVEL}, "bpref": {"no_nonrel": "undefined"}},
        empty_input="data",
        known_bugs=(
            "bpref: a query with relevant documents retrieved but no judged non-relevant one is 0/0 = NaN in "
            "ranx, and its mean becomes NaN; rankwise leaves the query out of the mean and counts it",
            "bpref with return_mean=False and make_comparable=True returned 0 for every query in ranx 0.3.21 "
            "(seen in tests; not reproduced)",
            "a run with no rows at all raises ValueError in ranx 0.3 (ranx #67); rankwise scores every judged query "
            "0, as ranx does a query whose ranking is empty",
        ),
        names=peers.RANX,
    ),
    Dialect(
        "sklearn",
        ("1.9",),
        "scikit-learn 1.9",
        "scikit-learn ndcg_score/dcg_score: tied scores averaged, ideal from the scored items only; "
        "average_precision_score: a group of tied scores is one threshold; roc_auc_score: ties count ½",
        "scikit-learn sklearn/metrics/_ranking.py (_tie_averaged_dcg, _ndcg_sample_scores, average_precision_score, "
        "roc_auc_score)",
        "tests/dialects/test_dialects.py against sklearn.metrics ndcg_score, dcg_score, average_precision_score, "
        "label_ranking_average_precision_score and roc_auc_score with heavy ties; "
        "tests/measures/test_sklearn_extras.py "
        "against coverage_error, label_ranking_loss, roc_auc_score(max_fpr) and dcg_score(log_base)",
        policies={"ties": "average"},
        bindings={"nDCG": {"universe": "retrieved"}, "AP": {"precision_at": "tie_end", "universe": "retrieved"}},
        names=peers.SKLEARN,
    ),
    Dialect(
        "torchmetrics",
        ("1.9", "1.8", "1.7"),
        ">= 1.7.4",
        "torchmetrics retrieval: only the items passed exist, AP ÷ hits, a document scored <= 0 is never a hit "
        "(AP, P, R, RR), nDCG averages tied scores",
        "Lightning-AI/torchmetrics src/torchmetrics/functional/retrieval/*.py",
        "tests/dialects/test_dialects.py against torchmetrics.functional.retrieval on tie-free scores (nDCG with ties)",
        policies={"ties": "average"},
        bindings={
            "P": {"gate": "positive_score"},
            "R": {"universe": "retrieved", "gate": "positive_score"},
            "RR": {"gate": "positive_score"},
            "AP": {"denom": "hits", "universe": "retrieved", "gate": "positive_score"},
            "nDCG": {"universe": "retrieved"},
            "FallOut": {"universe": "retrieved", "no_nonrel": "one"},
            "RecallAtPrecision": {"universe": "retrieved", "mean": "curve"},
        },
        caveats=(
            "AP, P, R, RR: tied scores are ordered by an unstable sort (implementation-defined); "
            "rankwise orders them by doc id",
        ),
        names=peers.TORCHMETRICS,
    ),
    Dialect(
        "lightgbm",
        ("4",),
        "4.x",
        "LightGBM ndcg@k / map@k: 2^l-1 gains, only the query's rows exist, a query without relevant rows scores 1",
        "microsoft/LightGBM src/metric/rank_metric.hpp, src/metric/dcg_calculator.cpp, src/metric/map_metric.hpp",
        "tests/dialects/test_dialects.py against lightgbm's own ndcg and map metrics (Booster.eval_train on init "
        "scores)",
        policies=SLATE_POLICIES,
        bindings={
            "nDCG": SLATE_NDCG,
            "AP": SLATE_AP,
        },
        names=peers.LIGHTGBM,
    ),
    Dialect(
        "xgboost",
        ("3",),
        "3.x",
        "XGBoost ndcg@k / map@k: as LightGBM (2^l-1 gains, only the query's rows, stable order, empty query "
        "= 1); its ndcg@k- / map@k- variants are empty=zero",
        "dmlc/xgboost src/metric/rank_metric.cc, src/common/ranking_utils.h",
        "tests/dialects/test_dialects.py against XGBoost's own ndcg@k, map@k and ndcg@k- (Booster.eval on base "
        "margins)",
        policies=SLATE_POLICIES,
        bindings={
            "nDCG": SLATE_NDCG,
            "AP": SLATE_AP,
        },
        names=peers.XGBOOST,
    ),
    Dialect(
        "allrank",
        ("1.4",),
        "1.4.x",
        "allRank ndcg / dcg / mrr: 2^l-1 gains, only the slate's items, NDCG = 1 when the ideal DCG is 0 "
        "(\"following XGBoost and LightGBM\"), padded items labelled -1",
        "allegro/allRank 1.4.3 (c884756) allrank/models/metrics.py: ndcg (gain_function 2^x - 1, filler_value 1.0 "
        "where idcg == 0), dcg (the slate's labels sorted by prediction, cut at min(k, slate length)), "
        "__apply_mask_and_get_true_sorted_by_preds (label -1: prediction -inf, label 0), mrr; "
        "allrank/data/dataset_loading.py:15 PADDED_Y_VALUE = -1",
        "tests/torch/test_torch_allrank.py against allRank's own metrics.py (a checkout's file, loaded with the "
        "installed torch: RANKWISE_ALLRANK_PATH) on random padded slates, and its pinned formulas on hand-made slates",
        policies=SLATE_POLICIES,
        bindings={
            "nDCG": SLATE_NDCG,
            "DCG": {"gain": "exp2"},
            "RR": {"empty": "one"},
        },
        known_bugs=(
            "mrr: a batch in which no slate has a positive label scores 0 for every slate (its zero_sum_mask sums "
            "the whole batch); otherwise a slate without one scores 1 (torch.max's first index); rankwise gives "
            "every such slate 1 (empty=one), whatever the batch; not reproduced",
            "mrr ranks the first document with the slate's largest label, not the first relevant one: with graded "
            "labels it is not a reciprocal rank of relevance; rankwise's RR uses rel (1); the same for 0/1 labels",
        ),
        caveats=(
            "ties: allRank sorts predictions with torch's default (unstable) sort: the order of tied scores is "
            "implementation-defined; rankwise keeps the slate's order (input_order)",
            "labels below 0 other than the padding -1: allRank's gain 2^l - 1 is negative; rankwise gives them no gain",
            "padding (label -1) is a property of tensors: rankwise.torch leaves such positions out under this "
            "dialect; in qrels and runs, leave padded items out",
            "allRank computes in float32 (its discounts are float32): its values differ from rankwise's float64 in "
            "the 7th digit",
        ),
        names=peers.ALLRANK,
    ),
    Dialect(
        "rs_metrics",
        ("0.6",),
        "0.6",
        "rs_metrics: users of the ground truth, lists in the order given, precision ÷ list length (NaN when empty), "
        "binary nDCG",
        "Darel13712/rs_metrics rs_metrics/metrics.py, rs_metrics/parallel.py (user_parallel)",
        "tests/dialects/test_dialects.py against rs_metrics per user (apply_mean=False)",
        policies={"queries": "qrels", "ties": "input_order"},
        bindings={
            "P": {"denom": "retrieved"},
            "nDCG": {"gain": "binary", "empty": "skip"},
            "R": {"empty": "skip"},
            "Coverage": {"count": "known"},
            "ARP": {"popularity": "users", "share": "yes"},
        },
        measure_queries=BEYOND_QUERIES,
        known_bugs=(
            "precision of a user with an empty list is NaN and rs_metrics' np.mean then returns NaN for all "
            "users; rankwise leaves that user out of the mean and counts it",
            "nDCG and recall of a user without relevant items are 0/0 = NaN, and the mean becomes NaN; rankwise "
            "leaves that user out of the mean and counts it",
        ),
        names=peers.RS_METRICS,
    ),
    Dialect(
        "spark_mllib",
        ("4.0", "3.5"),
        ">= 3.4 (binary relevance)",
        "Spark RankingMetrics / ml RankingEvaluator: binary nDCG with an ideal of min(k, |labels|), "
        "MAP@k ÷ min(k, |labels|), MAP ÷ |labels|, only users present in both (inner join)",
        "apache/spark mllib/src/main/scala/org/apache/spark/mllib/evaluation/RankingMetrics.scala",
        "tests/dialects/test_dialects.py against pyspark.ml.evaluation.RankingEvaluator (local Spark)",
        policies={"queries": "intersection", "ties": "input_order"},
        bindings={"AP": {"denom": "min_k_R"}, "nDCG": {"gain": "binary"}},
    ),
    Dialect(
        "replay",
        ("0.13", "0.14", "0.15", "0.16", "0.17", "0.18", "0.19", "0.20", "0.21", "0.22"),
        ">= 0.13",
        "RePlay: users of the ground truth, i.e. with a relevant item (no recommendations = 0), MAP ÷ min(k, r), "
        "binary nDCG, ties by item id descending",
        "sb-ai-lab/RePlay replay/metrics/map.py, ndcg.py, rocauc.py, base_metric.py",
        "tests/dialects/test_dialects_replay.py against replay-rec (0.20-0.22) per user and mean; "
        "tests/dialects/test_dialects_recsys.py",
        policies={"queries": "relevant", "ties": "docno_desc_numeric"},
        bindings={"AP": {"denom": "min_k_R"}, "nDCG": {"gain": "binary"}, "AUC": REPLAY_AUC, **REPLAY_BEYOND},
        measure_queries=BEYOND_QUERIES,
        known_bugs=(
            "before 0.20, pandas input is sorted by score alone with pandas' unstable sort, so tied scores do not "
            "come out by item id descending (its polars and Spark paths do); rankwise always orders them so",
        ),
        caveats=(
            "Novelty: RePlay's mean runs over every training user (a training user without a list scores 1, a user "
            "with a list but no training interaction is left out); rankwise evaluate averages over the users with a "
            "list, as the per-user values agree; rankwise.recsys.beyond.unseen_share(dialect='replay') gives "
            "RePlay's mean",
        ),
        names=peers.REPLAY,
    ),
    Dialect(
        "replay",
        ("0.11", "0.12"),
        "0.11–0.12 (and replay.experimental)",
        "RePlay 0.11–0.12: MAP ÷ k",
        "sb-ai-lab/RePlay replay/metrics/map.py (0.11)",
        "tests/dialects/test_dialects_recsys.py, hand-computed from the source",
        policies={"queries": "relevant", "ties": "docno_desc_numeric"},
        bindings={"AP": {"denom": "k"}, "nDCG": {"gain": "binary"}, "AUC": REPLAY_AUC},
        names=peers.REPLAY,
    ),
    Dialect(
        "replay",
        ("0.4",),
        "0.4 (the RecSys'21 paper's version)",
        "RePlay 0.4: MAP ÷ min(k, r) (its docs said 1/K)",
        "sb-ai-lab/RePlay replay/metrics/map.py (0.4)",
        "tests/dialects/test_dialects_recsys.py, hand-computed from the source",
        policies={"queries": "relevant", "ties": "docno_desc_numeric"},
        bindings={"AP": {"denom": "min_k_R"}, "nDCG": {"gain": "binary"}, "AUC": REPLAY_AUC},
        names=peers.REPLAY,
    ),
    Dialect(
        "recbole",
        ("1.2",),
        "1.2",
        "RecBole: test users with a positive item, MAP ÷ min(k, r) (its docs say otherwise), binary nDCG",
        "RUCAIBox/RecBole recbole/evaluator/metrics.py (Precision, MAP, NDCG, MRR, Hit)",
        "tests/dialects/test_dialects_libraries.py against recbole 1.2.1 itself (a second environment with numpy < "
        "1.24) on "
        "the ML-100K lists, GAUC included; its beyond-accuracy metrics (ItemCoverage, AveragePopularity, GiniIndex, "
        "ShannonEntropy, TailPercentage) in tests/dialects/test_recbole_beyond.py, RecBole's own Dataset, Collector "
        "and Evaluator on 40 random datasets and the ML-100K lists",
        policies={"queries": "relevant"},
        bindings={"AP": {"denom": "min_k_R"}, "nDCG": {"gain": "binary"}, "AUC": {"mean": "positives"},
                  "Entropy": {"log": "ln", "divide": "items"}, "ARP": {"repeats": "each"},
                  "LongTail": {"tail_ratio": 0.1, "repeats": "each"}},
        caveats=(
            "ties: when RecBole ranks items itself it takes torch.topk of the scores (collector.py:154), whose order "
            "of equal scores is implementation-defined; rankwise orders them by doc id",
            "Coverage and Gini: RecBole divides by / spreads over data.num_items, every item of the dataset (all "
            "splits) plus its [PAD] item 0 (recbole/evaluator/collector.py:85-87, Dataset.num): pass catalog= that "
            "number (the dataset's items + 1); without it rankwise's catalogue is the training items",
            "LongTail with tail_ratio <= 1 (TailPercentage) orders equal training counts by RecBole's internal item id "
            "(recbole/evaluator/metrics.py:737-742), numbered in the atomic file's order (pd.factorize, "
            "recbole/data/dataset/dataset.py:1197-1205); rankwise by item id: equal given RecBole's internal ids, or "
            "external ids numbered in file order",
        ),
        names=peers.RECBOLE,
    ),
    Dialect(
        "ms_recommenders",
        ("1.2",),
        ">= 1.2",
        "MS Recommenders python_evaluation: every ground-truth row is relevant, so with a rating threshold its users "
        "are those with a relevant item: precision/recall/MAP over such users in both, nDCG over every such "
        "ground-truth user, map_at_k ÷ min(k, r), binary gains with a natural-log discount, ties in row order; AUC "
        "pooled over every judged row",
        "recommenders-team/recommenders recommenders/evaluation/python_evaluation.py (merge_ranking_true_pred, "
        "ndcg_at_k, map_at_k)",
        "tests/dialects/test_dialects.py against recommenders.evaluation.python_evaluation",
        policies={"queries": "common_relevant", "ties": "input_order"},
        bindings={"AP": {"denom": "min_k_R"}, "nDCG": {"gain": "binary", "discount": "ln"}, "AUC": MS_AUC,
                  **MS_BEYOND},
        measure_queries={"nDCG": "relevant", "AUC": "intersection", **BEYOND_QUERIES},
        names=peers.MS_RECOMMENDERS,
    ),
    Dialect(
        "ms_recommenders",
        ("1.1", "1.0", "0"),
        "<= 1.1",
        "MS Recommenders up to 1.1: as 1.2 but map_at_k ÷ r, and nDCG over the users in both like the others "
        "(python_evaluation.py:379-382, 579)",
        "recommenders-team/recommenders recommenders/evaluation/python_evaluation.py (1.1)",
        "tests/dialects/test_dialects_pinned.py: formulas pinned on the ML-100K lists (python_evaluation.py at 1.1.1)",
        policies={"queries": "common_relevant", "ties": "input_order"},
        bindings={"AP": {"denom": "R"}, "nDCG": {"gain": "binary", "discount": "ln"}, "AUC": MS_AUC, **MS_BEYOND},
        measure_queries={"AUC": "intersection", **BEYOND_QUERIES},
        names=peers.MS_RECOMMENDERS,
    ),
    Dialect(
        "beta_recsys",
        ("0.3",),
        "0.3",
        "Beta-RecSys: MS Recommenders' evaluation (<= 1.1) over users in both truth and predictions for every measure "
        "(nDCG too), map_at_k ÷ r, truth rows below rating 1 dropped",
        "beta-team/beta-recsys v0.3.3 beta_rec/utils/evaluation.py:491-498 (users), 516-518 (rank), 689 (nDCG over "
        "the common users), 747-752 (MAP ÷ r), 778-782 (nlargest)",
        "tests/dialects/test_dialects_pinned.py: formulas pinned on the ML-100K lists (Beta-RecSys pins pandas 1.0.3 "
        "and "
        "does not run on pandas >= 3)",
        policies={"queries": "common_relevant", "ties": "input_order"},
        bindings={"AP": {"denom": "R"}, "nDCG": {"gain": "binary", "discount": "ln"}, "AUC": MS_AUC},
        measure_queries={"AUC": "intersection"},
        caveats=(
            "ties: a user with more prediction rows than k keeps tied rows in input order (nlargest's stable "
            "mergesort, which rankwise reproduces); a user with at most k rows (a top-k list scored at its own k) "
            "goes through nlargest's slow path, numpy's quicksort (numpy <= 1.24 under Beta-RecSys's pandas 1.0.3), "
            "which is not stable beyond 16 rows: its order of ties is not reproduced (rankwise keeps the input "
            "order; on the ML-100K popularity lists at k = 20 one user of 95 differs in nDCG and AP). Passing more "
            "rows than k, e.g. every candidate's score, avoids it",
        ),
    ),
    Dialect(
        "rectools",
        ("0.19",),
        "0.19",
        "RecTools: users of the ground truth (with a relevant item: every interaction is relevant), binary nDCG "
        "whose ideal is k hits whatever the user's number of relevant items; named variants: P(denom=min_k_R) is "
        "r_precision, AP(denom=k) divide_by_k, nDCG(ideal=sorted) divide_by_achievable, F1(beta=...) F1Beta",
        "MobileTeleSystems/RecTools 0.19 rectools/metrics/ranking.py (MAP l.170-287, NDCG l.444-463, MRR l.566), "
        "classification.py (Precision l.288-292, Recall l.315, F1Beta l.373-382, HitRate l.438), base.py:81-103",
        "tests/dialects/test_dialects_libraries.py against rectools itself on the ML-100K lists",
        policies={"queries": "relevant"},
        bindings={"nDCG": {"gain": "binary", "ideal": "k_ones"},
                  "ILD": {"kind": "feature_hamming", "single": "zero"},  # IntraListDiversity(Hamming)
                  "Serendipity": {"definition": "popularity_rank"}},
        measure_queries=BEYOND_QUERIES,
        caveats=("RecTools reads the rank column of the recommendations, never scores: give ranks, or scores "
                 "without ties",),
        names=peers.RECTOOLS,
    ),
    Dialect(
        "daisyrec",
        ("1",),
        "1.x (the RecSys'21 paper's version)",
        "DaisyRec 1.x: users with a relevant test item (loader.py:147-149 drops lower ratings), lists cut to k, "
        "AP ÷ k, MRR sums 1/rank over every hit, ideal DCG from the hits in the cut",
        "AmazingDD/daisyRec 1.x daisy/utils/metrics.py:16-21 (P), 53-74 (MRR), 77-109 (MAP), 126-149 (NDCG), "
        "main.py:295-299 (cut to k)",
        "tests/dialects/test_dialects_pinned.py: formulas pinned on the ML-100K lists (DaisyRec 1.x is not on PyPI)",
        policies={"queries": "relevant"},
        bindings={
            "AP": {"denom": "k"},
            "RR": {"hits": "all"},
            "nDCG": {"gain": "binary", "ideal": "hits"},
        },
        known_bugs=("P raises ValueError for a list shorter than k (metrics.py:16-21); rankwise divides by k",),
    ),
    Dialect(
        "daisyrec",
        ("2.3", "2.2", "2.1", "2.0"),
        "2.x (AmazingDD/daisyRec, daisyrec on PyPI)",
        "DaisyRec 2.x: users with a relevant test item (ratings below the threshold are dropped before the split), "
        "P ÷ list length, AP ÷ hits, ideal DCG from the hits in the top k (inflated)",
        "AmazingDD/daisyRec v2.3.0 daisy/utils/metrics.py:148-239, daisy/utils/loader.py:313 (threshold)",
        "tests/dialects/test_dialects_libraries.py against daisyrec 2.3.0 itself on the ML-100K lists",
        policies={"queries": "relevant"},
        bindings={
            "P": {"denom": "retrieved"},
            "AP": {"denom": "hits"},
            "nDCG": {"gain": "binary", "ideal": "hits"},
        },
        known_bugs=("F1 and AUC cannot be asked for: Metric.run tests kpi == 'f1' / 'auc' instead of the metric "
                    "name (metrics.py:87,89)",),
    ),
    Dialect(
        "daisyrec",
        ("2.0-benchmark",),
        "recsys-benchmark/DaisyRec-v2.0 (since 2023-06-22)",
        "DaisyRec-v2.0 benchmark line: as DaisyRec 2.x, but MRR sums 1/rank over every hit",
        "recsys-benchmark/DaisyRec-v2.0 daisy/utils/metrics.py:124-136 (MRR, commit d0d4bf6)",
        "tests/dialects/test_dialects_pinned.py: formulas pinned on the ML-100K lists (not on PyPI)",
        policies={"queries": "relevant"},
        bindings={
            "P": {"denom": "retrieved"},
            "AP": {"denom": "hits"},
            "RR": {"hits": "all"},
            "nDCG": {"gain": "binary", "ideal": "hits"},
        },
    ),
    Dialect(
        "dl_rs_eval",
        ("2019",),
        "RecSys 2019 DeepLearning Evaluation",
        "DL-RS-Eval: P ÷ list length, AP ÷ min(|test|, |list|), 2^rel-1 gains with a natural-log discount and an "
        "ideal over every test item, hit rate = mean hits, F1 from the mean P and mean R; "
        "P(denom=min_shown_R) is its PRECISION_RECALL_MIN_DEN",
        "MaurizioFD/RecSys2019_DeepLearning_Evaluation Base/Evaluation/metrics.py:65-74 (MAP), 102-118 (ROC_AUC), "
        "136-155 (precision, PRECISION_RECALL_MIN_DEN), 180-209 (NDCG); Evaluator.py:257-263 (F1), 339 (HIT_RATE)",
        "tests/dialects/test_dialects_pinned.py: formulas pinned on the ML-100K lists (not on PyPI)",
        policies={"queries": "relevant"},
        bindings={
            "P": {"denom": "retrieved"},
            "AP": {"denom": "min_shown_R"},
            "F1": {"denom": "retrieved", "mean": "from_means"},
            "nDCG": {"gain": "exp2", "discount": "ln", "ideal": "uncut"},
            "HitRate": {"count": "hits"},
            "AUC": {"compare": "rank", "one_class": "dl_rs_eval"},
        },
        caveats=(
            "ties: DL-RS-Eval ranks items itself with numpy's argpartition and default quicksort "
            "(BaseRecommender.py:189-196), whose order of equal scores is implementation-defined; rankwise orders "
            "them by doc id",
            "precision of an empty list is 0 in DL-RS-Eval and undefined in rankwise (its users always get a list)",
        ),
    ),
    Dialect(
        "openrec",
        ("tf2",),
        "tf2 (openrec 0.3 openrec.tf2.metrics)",
        "OpenRec tf2: NDCG is binary DCG, never normalised; ranks count only strictly higher scores (ties share the "
        "best rank); AUC counts a tied pair as correctly ordered",
        "ylongqi/openrec openrec/tf2/metrics/ranking_metrics.py:8-25 (AUC, <= at l.18), 28-47 (NDCG: DCG, l.40), "
        "50-69 (recall)",
        "tests/dialects/test_dialects_pinned.py: formulas pinned on the ML-100K lists (needs TensorFlow 2, not "
        "installed)",
        policies={"queries": "relevant"},
        bindings={
            "nDCG": {"gain": "binary", "ideal": "none", "rank": "optimistic"},
            "DCG": {"gain": "binary", "rank": "optimistic"},
            "R": {"rank": "optimistic"},
            "AUC": {"compare": "score_ties_win"},
        },
        caveats=(
            "tf2 applies exp() to float32 scores before ranking (l.33, 56): scores above about 88.7 become inf and "
            "tie; rankwise ranks the scores as given",
            "tf2 has no precision; P here is rankwise's",
        ),
    ),
    Dialect(
        "openrec",
        ("tf1",),
        "tf1 (openrec 0.3 openrec.tf1 evaluators)",
        "OpenRec tf1: each positive ranked against the non-positives only (several can share rank 1: P and NDCG can "
        "exceed 1); P and R admit rank k+1 (a 0-based rank compared with <= k); NDCG's ideal over every positive, "
        "not cut at k; AUC counts a tied negative as correctly ordered",
        "ylongqi/openrec openrec/tf1/utils/evaluators/eval_manager.py:9-25 (ranks), auc.py:12, precision.py:16-19, "
        "recall.py:16-19, ndcg.py:16-25",
        "tests/dialects/test_dialects_libraries.py against openrec 0.3.0's own tf1 evaluator files on the ML-100K "
        "lists "
        "(loaded without TensorFlow, which they do not use)",
        policies={"queries": "relevant"},
        bindings={
            "P": {"rank": "among_nonrelevant", "within": "k_plus_1"},
            "R": {"rank": "among_nonrelevant", "within": "k_plus_1"},
            "nDCG": {"gain": "binary", "ideal": "uncut", "rank": "among_nonrelevant"},
            "AUC": {"compare": "score_ties_win"},
        },
        caveats=("tf1 scores every catalogue item, train items included, as a negative (dataset.py:119-131): the "
                 "run must list them to match",),
    ),
    Dialect(
        "lenskit",
        ("2025",),
        "2025.x",
        "LensKit: every user with a list is averaged (undefined values count 0), precision ÷ list length, recall ÷ "
        "min(|test|, k), AP ÷ min(|test|, |list|), binary nDCG with discount 1/log2(max(i,2))",
        "lenskit/lkpy v2025.8.0 src/lenskit/metrics/ranking/_pr.py:36-70, _map.py:28-43, _dcg.py:95-122, "
        "_weighting.py:118-122; metrics/bulk.py:90-95 and _base.py:113 (list_summary fills NaN with 0)",
        "tests/dialects/test_dialects_libraries.py against lenskit 2025.8 itself on the ML-100K lists",
        policies={"queries": "run"},
        bindings={
            "P": {"denom": "retrieved"},
            "R": {"denom": "min_k_R"},
            "AP": {"denom": "min_shown_R", "empty": "skip"},
            "nDCG": {"gain": "binary", "discount": "log2_max2"},
            "DCG": {"gain": "binary", "discount": "log2_max2"},
        },
        known_bugs=("AveragePrecision raises ZeroDivisionError for a user with a list but no test items "
                    "(_map.py:40-43), so its mean exists only over users with test items: rankwise leaves the others "
                    "out of the AP mean and counts them",),
        names=peers.LENSKIT,
    ),
    Dialect(
        "elliot",
        ("0.3",),
        "0.3",
        "Elliot: users with recommendations and a relevant item; MAP = (1/k) Σ_{n≤k} P@n (its docs say otherwise); "
        "ratings stay graded: nDCG gain 2^(r − t + 1) − 1 with t the threshold; GAUC / LAUC@k / AUC count "
        "catalogue − training items − R + 1 negatives per user (needs the training interactions)",
        "sisinflab/elliot v0.3.1 elliot/evaluation/metrics/accuracy/ (map/map.py:61-80, ndcg/ndcg.py:75-103, "
        "AUC/auc.py:78-89, AUC/gauc.py:73-94, AUC/lauc.py:58-87), elliot/evaluation/relevance/relevance.py:80-87, "
        "evaluator.py:65-69 (num_items = items in training)",
        "tests/dialects/test_dialects_pinned.py: formulas pinned on the ML-100K lists (Elliot is not on PyPI)",
        policies={"queries": "common_relevant", "ties": "input_order"},
        bindings={
            "AP": {"denom": "k", "precisions": "every"},
            "nDCG": {"gain": "exp2_rel", "rel": REL_LEVEL},
            "DCG": {"gain": "exp2_rel", "rel": REL_LEVEL},
            "AUC": {"form": "elliot", "compare": "rank"},
            "Coverage": {"over": "count"},
            "ARP": {"popularity": "users"},
        },
        measure_queries={**BEYOND_QUERIES, "RSP": "run"},  # rsp.py:108-109: every user with recommendations
        ratings="graded",
        known_bugs=(
            "AUC/GAUC/LAUC: Elliot counts catalogue − training items − R + 1 negatives, one more than there are, so "
            "a relevant item ranked last still scores 1/(N + 1); reproduced",
        ),
        caveats=(
            "Elliot's relevance threshold defaults to 0 (run.py:55-56): every rating is relevant and gains are "
            "2^(r + 1) − 1; give --threshold 0 (or -l 0) to match a configuration without relevance_threshold",
            "ties: Elliot keeps the recommender's list order; rankwise uses the run's input order",
            "AUC (mean=pooled) averages over the relevant items found in the lists; Elliot asks its models for "
            "every candidate item, so give full rankings to match it",
        ),
        names=peers.ELLIOT,
    ),
    Dialect(
        "neurec",
        ("2020",),
        "master since 2020-06, C++ evaluator (tried first)",
        "NeuRec with its C++ evaluator: AP ÷ min(k, R), binary nDCG, every user with a test item averaged",
        "wubinzzu/NeuRec evaluator/backend/__init__.py:1-6 (C++ first), backend/cpp/include/metric.h:17-109 "
        "(AP l.46-65)",
        "tests/dialects/test_dialects_pinned.py: formulas pinned on the ML-100K lists (needs its compiled extension)",
        policies={"queries": "relevant"},
        bindings={"AP": {"denom": "min_k_R"}, "nDCG": {"gain": "binary"}},
        caveats=("ties: the C++ evaluator ranks with std::partial_sort_copy (evaluate.h:38-42): the order of equal "
                 "scores is implementation-defined and depends on k; rankwise orders them by doc id",),
    ),
    Dialect(
        "neurec",
        ("2020.python",),
        "master since 2020-06, Python fallback evaluator",
        "NeuRec's Python evaluator: AP ÷ Σ_{i≤k} min(i, R) (a cumulative sum slip), binary nDCG, ties to the higher "
        "item index",
        "wubinzzu/NeuRec evaluator/backend/python/metric.py:20-64 (MAP l.34-41), util/tool.py:149-151 (ranking)",
        "tests/dialects/test_dialects_pinned.py: formulas pinned on the ML-100K lists",
        policies={"queries": "relevant", "ties": "docno_desc_numeric"},
        bindings={"AP": {"denom": "neurec"}, "nDCG": {"gain": "binary"}},
        known_bugs=(
            "MAP divides by Σ_{i≤k} min(i, R) (np.cumsum where min(k, R) was meant); the C++ evaluator divides by "
            "min(k, R)",
        ),
        caveats=("ties: NeuRec breaks them toward the higher internal item index; rankwise uses the item id, "
                 "numerically descending",),
    ),
    Dialect(
        "neurec",
        ("1",),
        "1.0.0 (PyPI, the 2019 code)",
        "NeuRec 1.0.0: AP ÷ min(|list|, R), binary nDCG with an ideal over every test item (not cut at k), MRR 1 only "
        "when the first item is relevant",
        "neurec 1.0.0 neurec/evaluation/foldout/ (MAP.py:1-12, NDCG.py:2-17, MRR.py:1-7, FoldOutEvaluate.py:31-75)",
        "tests/dialects/test_dialects_libraries.py against neurec 1.0.0's own metric files on the ML-100K lists",
        policies={"queries": "relevant"},
        bindings={
            "AP": {"denom": "min_shown_R"},
            "nDCG": {"gain": "binary", "ideal": "uncut"},
            "RR": {"hits": "top1"},
        },
        known_bugs=("MRR returns 0 at the first non-relevant item (MRR.py: `else: return 0` inside the loop), so it is "
                    "1 only when the first item is relevant",),
        caveats=("ties: heapq.nlargest over a dict keeps insertion order (the order of a Python set of item ids); "
                 "rankwise orders them by doc id",),
    ),
    Dialect(
        "recsys_pytorch",
        ("0",),
        "RecSys_PyTorch",
        "RecSys_PyTorch holdout evaluation: P ÷ k, recall ÷ |T|, binary nDCG with ideal min(|T|, k), every user "
        "with a test row averaged",
        "yoongi0428/RecSys_PyTorch evaluation/backend/python/holdout.py, cython/include/holdout.h",
        "tests/dialects/test_dialects_recsys.py, hand-computed from the source",
        policies={"queries": "qrels"},
        bindings={"nDCG": {"gain": "binary", "empty": "skip"}, "R": {"empty": "skip"}, "P": {"empty": "skip"}},
        known_bugs=(
            "a user without test items raises ZeroDivisionError (Python backend) or makes the mean NaN (C++); "
            "rankwise leaves the user out of the mean and counts it",
        ),
        caveats=("ties: an unstable argsort orders equal scores arbitrarily, and scores are cast to float32 "
                 "(evaluator.py:37); rankwise orders ties by doc id",),
    ),
    Dialect(
        "ndeval",
        ("4.5",),
        "ndeval 4.5, as pyndeval 0.0.8 (and ir_measures' ndeval provider) runs it",
        "TREC Web track ndeval: ties by doc id ascending, alpha-DCG@1 and ERR-IA@1 not normalised, nNRBP undefined "
        "for a query without a relevant subtopic",
        "ndeval.c 4.5: computeDCG and computeERR normalise from rank 2 on, renormalize divides NRBP by the ideal's "
        "even when both are 0, idealResult breaks ties toward the larger docno; terrierteam/pyndeval "
        "pyndeval/__init__.py _coerce_run_iter (a run sorted by score, then docno ascending)",
        "tests/measures/test_intent_aware.py against pyndeval 0.0.8 per query, on random runs with ties",
        policies={"ties": "docno_asc"},
        bindings={"alpha-DCG": {"norm_at_1": "no"}, "ERR-IA": {"norm_at_1": "no"}, "nNRBP": {"no_subtopics": "skip"}},
        known_bugs=(
            "alpha-DCG@1 and ERR-IA@1 are not divided by their normaliser (the loop starts at rank 2), so they can "
            "exceed 1; reproduced",
            "nNRBP of a query without a relevant subtopic is 0/0 = NaN, and so is its mean; rankwise leaves the query "
            "out of the mean and counts it",
        ),
        caveats=(
            "ties: the ndeval binary orders a run by its rank column (with -traditional by score, then docno "
            "descending: rankwise's default tie order); pyndeval, and so ir_measures, by score, then docno ascending",
            "ndeval computes cutoffs up to 20 (DEPTH); rankwise computes any k",
        ),
    ),
    Dialect(
        "expeval",
        ("69ab070",),
        "diazf/expeval at 69ab070 (2020)",
        "expeval: expected exposure EE-L, EE-D, EE-R normalised by its bounds (its default output; -U: "
        "normalise=no), gERR browsing with p = u = 0.5, every judged query with a relevant document",
        "diazf/expeval expeval.py main (queries of the qrels, defaults for a query without a ranking), exposure.py "
        "expected and target, metrics.py (values and bounds), util.py geometricSeries, data.py read_qrels (only "
        "documents with grade > 0 without -C)",
        "tests/measures/test_exposure.py against expeval's own code (RANKWISE_EXPEVAL: a checkout) and against its "
        "formulas pinned per document, on random qrels and runs with ties, under every option",
        policies={"queries": "qrels"},
        bindings={name: {"normalise": "yes"} for name in ("EE-L", "EE-D", "EE-R")},
        known_bugs=(
            "expeval.py gives a query without a ranking difference = relevance's upper bound, which metrics.py zeroes "
            "when the target has one grade (binary relevance): that query would score the best EE-L; rankwise scores "
            "‖ε*‖², the distance from an empty exposure",
            "metrics.py bounds with q' = p·u under gerr where exposure.py browses with p(1 − u): reproduced (equal "
            "at the default u = 0.5)",
            "exposure.target raises 1 − u to every dominating document for a non-relevant grade: rankwise counts the "
            "relevant ones only (equal unless two non-relevant grades are judged, e.g. rel=2 with -C)",
            "group evaluation (-G): GroupRelevance's upper bound is always 0 (ub += v * ub from 0), so its normalised "
            "relevance is always 1: reproduced by EE-R(over=groups, normalise=yes)",
        ),
        caveats=("expeval reads its run as samples of a stochastic ranking (the second column): rankwise does so with "
                 "samples=True (--samples); without, one ranking per query, and the expectation over every order of "
                 "equal scores with --ties average",),
        names=peers.EXPEVAL,
    ),
    Dialect(
        "trec_fair",
        ("2022",),
        "TREC Fair Ranking 2022, Task 1 (fair-trec/trec2022-fair-public at 6fd105f)",
        "TREC Fair 2022 Task 1: nDCG with binary utility and the track's discount, AWRF against the relevant "
        "documents' groups, Score = nDCG × AWRF, over rankings of at most 500 documents, every query of the qrels",
        "fair-trec/trec2022-fair-public wptrec/metrics/awrf.py:45-77 (qr_ndcg: util = np.isin(qrun, qrels), the "
        "discount of common.py:12-30 1/log2(max(i, 2)), ideal over min(500, R)), awrf.py:79-127 (qr_awrf), "
        "awrf.py:129-150 (the nDCG, AWRF and Score columns)",
        "tests/measures/test_fairness.py against the track's own AWRFMetric (RANKWISE_WPTREC: a checkout, with xarray) "
        "and against its formulas pinned by file:line, on random rankings with item groups",
        policies={"queries": "qrels"},
        bindings={"nDCG": {"gain": "binary", "discount": "log2_max2", "empty": "skip"}},
        caveats=("the track's targets mix each dimension's relevant-document distribution with a world-population "
                 "or equal background (Task1Alignment.py:119-132): target=mixed takes the uniform background; a "
                 "soft or multi-valued alignment (an article in several groups) is not read: one group per item",
                 "qr_ndcg raises for a ranking of more than 500 documents; rankwise cuts at 500"),
        names=peers.TREC_FAIR,
    ),
    Dialect(
        "gdeval",
        ("1.2",),
        "gdeval.pl 1.2a (TREC Web track), as shipped in ir_measures 0.4",
        "TREC Web track gdeval: nDCG@k with 2^g − 1 gains, ERR@k with a maximum grade of 4, averaged over the run's "
        "queries with a relevant judgment (the only ones gdeval prints)",
        "gdeval.pl 1.2a (ir_measures/bin/gdeval.pl): runOrder (score descending, then docno descending as text: "
        "rankwise's default tie order), dcg() ((2^g − 1) / log(i + 2) over the ranking, and over the judgments > 0 "
        "sorted by grade for the ideal, both cut at k), err() (MAX_JUDGMENT = 4), topicDone (prints a topic only "
        "when it has a judgment > 0, $seen; the original script's amean divides by those topics)",
        "tests/measures/test_err.py against gdeval.pl run by Perl per query (the queries it prints, their mean) and "
        "against "
        "ir_measures' gdeval provider, on random runs with ties, negative grades, unjudged documents and queries "
        "missing on either side",
        policies={"queries": "common_relevant"},
        bindings={"nDCG": {"gain": "exp2"}, "ERR": {"max_grade": 4}},
        caveats=(
            "ir_measures' gdeval provider scores every judged query, 0 for those gdeval does not print (no judgment "
            "> 0, or missing from the run), and averages them: --dialect gdeval -c (queries=qrels) reproduces it",
            "gdeval reads only numeric query ids (after stripping a prefix up to '-') and refuses grades above 4; "
            "rankwise reads any id and, for nDCG, any grade",
            "gdeval prints nDCG@k and ERR@k only, always with a cutoff; other measures keep trec_eval's definitions "
            "and are averaged over the same queries",
        ),
    ),
    Dialect(
        "trectools",
        ("0.0.50",),
        "trectools 0.0.50 (TrecEval with its defaults, trec_eval=True)",
        "trectools' TrecEval: means over the run's queries (a query without a relevant judgment counts 0), RBP "
        "with binary gains and p = 0.8, Unjudged@k averaged and NumRel summed over the judged queries",
        "joaopalotti/trectools trectools/trec_eval.py 0.0.50: each get_* mean divides the sum of its per-query "
        "values by len(run.topics()) (get_unjudged: len(qrels.topics())), get_relevant_documents sums over the "
        "qrels' queries; trec_eval=True sorts by score, then docid descending; get_rbp(p=0.8, "
        "binary_topical_relevance=True); trec_qrel.py read_qrel drops grades < 0; trec_run.py read_run sorts by "
        "score, then docid ascending",
        "tests/dialects/test_dialects_trectools.py against TrecEval on TREC files, per query and in aggregate, on "
        "random runs "
        "with ties, negative grades, unjudged documents and queries missing on either side; and against "
        "ir_measures' trectools provider",
        policies={"queries": "run"},
        bindings={"RBP": {"gain": "binary", "p": 0.8}, "RBPResidual": {"p": 0.8}},
        measure_queries={"Unjudged": "qrels", "NumRel": "qrels"},
        known_bugs=(
            "per query, trectools reports NaN, or no row, where the value is 0 (a run query without a relevant "
            "judgment: R, AP, nDCG, Rprec; without a relevant document retrieved: RR, nDCG, RBP, NumRelRet; bpref: "
            "without a judged one) and adds NaN rows for judged queries missing from the run; its means divide the "
            "sum by the number of run queries, so these count 0: rankwise reports the 0, with the same means",
            "bpref of a query without a judged non-relevant document is 0 (min(R, N) = 0 makes every term 0/0, which "
            "the sum drops); trec_eval and rankwise score each relevant document retrieved 1; not reproduced",
            "get_geometric_map is NaN whenever a per-query AP is (a run query without a relevant judgment, or a "
            "judged query with one missing from the run); rankwise floors that AP at 1e-5 as trec_eval does, and "
            "equals trectools wherever it gives a number",
            "get_rprec raises KeyError on a run query without judgments, and with pandas >= 3 (groupby.apply drops "
            "the query column) matches each query's top R documents against every query's relevant documents by "
            "doc id alone, wrong when queries share doc ids; rankwise gives trec_eval's Rprec, which trectools "
            "computes under pandas 2",
            "get_unjudged divides the sum over the run's queries by the number of judged queries; reproduced by "
            "averaging Unjudged@k over the judged queries (one missing from the run scores 0): the same mean unless "
            "the run has a query without any judgment or the qrels one whose grades are all negative",
            "get_rbp gives tied documents the mean of their rank weights, forming tie groups across query "
            "boundaries (the last documents of a query and the first of the next, when their scores are equal); "
            "not reproduced: rankwise's RBP has no tie averaging (average_ties=False is RBP with --ties docno_asc)",
            "get_rbp's residual adds p^depth (p^1000 unless told) for the unread tail, not p^|L| after a ranking of "
            "|L| documents, and is NaN for a query without a relevant document retrieved; its RBP mean is NaN when "
            "no query retrieves one (rankwise: 0); rankwise's RBPResidual stays trec_eval's",
            "removeUnjudged=True is ignored by get_reciprocal_rank and get_rprec (they rank the whole run); for "
            "get_precision, get_recall and get_ndcg it is judged_only=True (trec_eval -J)",
        ),
        caveats=(
            "ties: trec_eval=True (the default) re-sorts by score, then doc id descending (the dialect's order) in "
            "every method but get_ndcg and get_rbp, which keep TrecRun's order (score, then doc id ascending): for "
            "trectools' nDCG on tied scores give --ties docno_asc; with trec_eval=False every method keeps "
            "TrecRun's order (--ties docno_asc) and get_ndcg uses 2^g − 1 gains (nDCG(gain=exp2))",
            "depth: every method cuts rankings at 1000 unless told (get_unjudged at 10; evaluate_all's MAP mean at "
            "10000); rankwise reads whole rankings: give -M 1000 (depth=1000) for deeper runs. get_bpref's depth "
            "counts judged documents only, which no depth policy reproduces",
            "relevance is grade > 0 in every method, whatever -l; the qrels reader drops grades below 0, so they "
            "are unjudged (as for trec_eval's bpref and -J)",
            "ids: pandas reads an all-numeric id column as numbers, so '007' becomes '7' (ids merge, and ties are "
            "ordered on the new text); rankwise keeps ids as written",
            "ir_measures' trectools provider runs trec_eval=False on its own frames: ties in the order given, every "
            "judged query reported (trectools' NaN passed through, so a mean can be NaN), grades below 0 kept (its "
            "bpref counts a negative-graded document retrieved as relevant), RBP gains the grade itself: --ties "
            "input_order -c reproduces its P, AP, RR and nDCG",
            "an empty qrels file gives every run query 0 and an empty run NaN means in trectools; rankwise refuses "
            "both",
        ),
    ),
)
