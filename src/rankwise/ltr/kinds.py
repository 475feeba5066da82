"""The model kinds ``rankwise ltr train --model`` offers, by name (read by the command line without importing
numpy, LightGBM or PyTorch)."""

MODEL_KINDS = {
    "lightgbm": "LambdaMART in LightGBM (objective lambdarank unless -p objective=...)",
    "xgboost": "LambdaMART in XGBoost (objective rank:ndcg; -p objective=rank:pairwise or rank:map)",
    "linear": "a linear scorer in PyTorch, trained with --loss",
    "mlp": "a multilayer perceptron in PyTorch (-p hidden=64,32), trained with --loss",
    "transformer": "self-attention over each query's documents in PyTorch, allRank's (-p d_model=64 -p heads=2 "
    "-p blocks=2 -p ff=128), trained with --loss",
}
