"""Notes and messages in words that agree with their numbers ("1 judged query is", "2 judged queries are")."""

from __future__ import annotations


def counted(number: int, singular: str, plural: str) -> str:
    """``number`` followed by ``singular`` when it is 1, else ``plural``: ``counted(1, "query is", "queries are")``
    is ``"1 query is"``. Both forms are written out in full, verbs included, so every sentence agrees."""
    return f"{number} {singular if number == 1 else plural}"


def shorten(text: str, limit: int = 40) -> str:
    """``text`` cut to ``limit`` characters with a count of the rest, to echo user input on one short line."""
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text) - limit} more characters)"


TORCH_CPU_INDEX = "https://download.pytorch.org/whl/cpu"


def install_hint(extra: str) -> str:
    """The command that installs an optional extra. rankwise is not on PyPI, so it is installed from a checkout:
    ``pip install '.[extra]'`` in the repository's directory. PyTorch's default wheels pull the CUDA build (about
    20 nvidia packages); the hint for the torch extras says how to get the CPU build first."""
    hint = f"pip install '.[{extra}]' (in a rankwise checkout)"
    if extra in ("torch", "ltr"):
        hint += f"; for the CPU-only build of PyTorch run first: pip install torch --index-url {TORCH_CPU_INDEX}"
    return hint


__all__ = ["TORCH_CPU_INDEX", "counted", "install_hint", "shorten"]
