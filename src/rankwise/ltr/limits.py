"""What a small input may make learning to rank allocate.

Two rules keep a few bytes of input from asking for gigabytes:

- **Inferred width.** A file's width (its number of feature columns) is, unless given, its largest feature
  index. That width may be at most :func:`largest_inferred_width` of the number of stored ``index:value`` entries:
  ``max(65,536, stored entries)``. An 80-byte file with index ``100000000`` is refused (LightGBM would build 10^8
  feature histograms, several GB); a wider width must be asked for explicitly (``num_features=`` in Python,
  ``--num-features`` on the command line).
- **Width.** No width past :data:`MAX_WIDTH` (2^31 − 1), what the boosting libraries can index.
- **Memory.** Before a large array or network is made, its size is compared with the machine's physical memory
  (:func:`check_memory`): dense feature matrices for the PyTorch models, and a network's weights with what training
  keeps for them. A request that cannot fit is one error line, instead of an allocation that swaps or is killed.
"""

from __future__ import annotations

import os

from ..errors import RankwiseError

WIDTH_WITHOUT_ASKING = 1 << 16
"""The widest a file may be, whatever its size, without an explicit ``num_features``."""
MAX_WIDTH = 2**31 - 1
"""The widest data may be, asked for or not: LightGBM and XGBoost index feature columns with 32-bit integers
(LightGBM asserts ``shape[1] <= 2^31 - 1``)."""


def largest_inferred_width(stored_entries: int) -> int:
    """The largest width that may be inferred from data with ``stored_entries`` ``index:value`` entries:
    ``max(WIDTH_WITHOUT_ASKING, stored_entries)``."""
    return max(WIDTH_WITHOUT_ASKING, int(stored_entries))


def physical_memory() -> int | None:
    """Bytes of physical memory of this machine, or None where the platform does not say."""
    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, OSError, ValueError):
        return None


def _gib(nbytes: float) -> str:
    return f"{nbytes / 2**30:.1f} GiB"


def check_memory(nbytes: int, what: str) -> None:
    """Raise a :class:`RankwiseError` naming ``what`` when ``nbytes`` exceed the machine's physical memory (no
    check where it is unknown)."""
    available = physical_memory()
    if available is not None and nbytes > available:
        raise RankwiseError(f"{what} would take {_gib(nbytes)}, more than this machine's {_gib(available)} of memory")
