"""Compute kernels: one vectorised numpy function per measure family, on the :class:`~rankwise.engine.aligned.Aligned`
arrays, registered by family name in :data:`KERNELS`.

Each kernel (:data:`rankwise.kernels.common.Kernel`) takes the aligned data, the measure and the resolved relevance
threshold and returns one float64 per evaluated query (NaN where the measure is undefined for that query). The
formulas are documented in the module of the same family in :mod:`rankwise.measures`; comments in the kernels name
the behaviour of the reference implementation each line reproduces.

The modules, named as the modules of measure definitions in :mod:`rankwise.measures`:

- :mod:`.common`: what several families share: the :data:`~.common.Kernel` type, the one check of a parameter value
  (:func:`~.common.choice`), the cutoff, the rank a row is scored at, R, the ``empty`` policy, |L[:k]|;
- one module per group of families, each with a ``<GROUP>_KERNELS`` dict (family name → kernel):
  :mod:`.precision` (P, R, AP, bpref, the counts, ...), :mod:`.gain` (DCG, nDCG, ...), :mod:`.pairwise` (KendallTau,
  AUC, ...), :mod:`.user_model` (RBP, ERR, the C/W/L measures, Compat), :mod:`.beyond` (the beyond-accuracy
  measures), :mod:`.exposure` (expected exposure), :mod:`.fairness` (AWRF, RSP, REO over item groups), :mod:`.intent`
  (the intent-aware measures of ndeval), :mod:`.overlap` (RBO, LIP: each list against a reference list);
- :mod:`.aggregate`: from the per-query values to one number (:func:`~.aggregate.aggregation_inputs`,
  :func:`~.aggregate.aggregate_from`), calling into the families whose aggregate needs more than the values.

Imports go one way: :mod:`.common` ← the family modules ← :mod:`.aggregate` ← this package. A family module imports
:mod:`.common` and no other family; nothing inside the package imports this ``__init__``.

**Adding a family.** Write its kernel, with its formula and reference in the docstring, in the module of its group
(the module of the same name as the one in :mod:`rankwise.measures` that defines it, e.g. a new gain measure in
:mod:`.gain`), and add it to that module's ``<GROUP>_KERNELS``. A helper another module needs goes to :mod:`.common`
(public, documented). A new group gets a module of its own, importing only :mod:`.common`, whose dict is merged into
:data:`KERNELS` below. A family aggregated from more than its per-query values (:attr:`Measure.aggregation`) adds
its inputs and their combination to :mod:`.aggregate`.
"""

from __future__ import annotations

from .aggregate import ROWS_PER_QUERY, AggregationInputs, aggregate_from, aggregation_inputs, concatenate_inputs
from .beyond import BEYOND_KERNELS
from .common import Kernel, apply_empty_policy
from .exposure import EXPOSURE_KERNELS
from .fairness import FAIRNESS_KERNELS
from .gain import GAIN_KERNELS
from .intent import INTENT_KERNELS
from .overlap import OVERLAP_KERNELS
from .pairwise import PAIRWISE_KERNELS
from .precision import PRECISION_KERNELS
from .user_model import USER_MODEL_KERNELS

__all__ = [
    "KERNELS",
    "ROWS_PER_QUERY",
    "AggregationInputs",
    "Kernel",
    "aggregate_from",
    "aggregation_inputs",
    "apply_empty_policy",
    "concatenate_inputs",
]

KERNELS: dict[str, Kernel] = {
    **PRECISION_KERNELS,
    **GAIN_KERNELS,
    **PAIRWISE_KERNELS,
    **USER_MODEL_KERNELS,
    **BEYOND_KERNELS,
    **EXPOSURE_KERNELS,
    **FAIRNESS_KERNELS,
    **OVERLAP_KERNELS,
    **INTENT_KERNELS,
}
"""Measure family name → its kernel (each family in the dict of exactly one module)."""
