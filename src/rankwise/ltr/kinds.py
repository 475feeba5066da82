"""The model kinds ``rankwise ltr train --model`` offers, by name (read by the command line without importing
numpy, LightGBM or PyTorch)."""

MODEL_KINDS = {
    "lightgbm": "LambdaMART in LightGBM (objective lambdarank unless -p objective=...)",
    "xgboost": "LambdaMART in XGBoost (objective rank:ndcg; -p objective=rank:pairwise or rank:map)",
    "linear": "a linear scorer in PyTorch, trained with --loss",
    "mlp": "a multilayer perceptron in PyTorch (-p hidden=64,32), trained with --loss",
}
