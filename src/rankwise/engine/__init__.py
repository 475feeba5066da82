"""The data layout every measure is computed on: qrels and run aligned into flat arrays (:mod:`.aligned`), the row
operations that group, order and look them up (:mod:`.rowops`, compiled in ``_rowops.c``), training interactions
indexed once (:mod:`.training`) and item similarity (:mod:`.similarity`)."""
