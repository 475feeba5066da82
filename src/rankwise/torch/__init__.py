"""rankwise.torch: rankwise's measures on torch tensors, on CPU or CUDA, for validation loops.

``evaluate(scores, labels, measures, mask)`` gives per-query values ``[B]`` of a batch of slates ``[B, L]``, equal to
:func:`rankwise.evaluate` on the same data (the same definitions, tie policies and dialects; float64 on request),
``mean`` their means, and :class:`RankingMeasures` accumulates batches. PyTorch is an optional extra:
``pip install '.[torch]'``.
"""

from __future__ import annotations

from rankwise.errors import RankwiseError
from rankwise.wording import install_hint


class TorchMissingError(RankwiseError, ImportError):
    """PyTorch is not installed (an ImportError too, so ``pytest.importorskip`` and ``except ImportError`` work)."""


try:
    import torch as _torch  # noqa: F401  # the real PyTorch (absolute import), not this package
except ImportError:
    raise TorchMissingError(f"rankwise.torch needs PyTorch: {install_hint('torch')}") from None

from .accumulate import RankingMeasures  # noqa: E402
from .functional import evaluate, mean  # noqa: E402
from .plan import IMPLEMENTED, TensorPlan, make_tensor_plan  # noqa: E402

__all__ = ["IMPLEMENTED", "RankingMeasures", "TensorPlan", "TorchMissingError", "evaluate", "make_tensor_plan", "mean"]
