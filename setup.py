"""Builds the optional C extensions ``rankwise.engine._rowops`` (from ``_rowops.c`` and ``_rowranges.c``, the
operations over query ranges) and ``rankwise.io._trecscan`` (plain C, no numpy headers); the rest is in
pyproject.toml.

``optional=True``: where no C compiler is found, rankwise installs without them and runs the same operations in numpy
(:mod:`rankwise.engine.rowops`) and reads TREC files with polars (:mod:`rankwise.io.trec`). ``_trecscan`` is built from
``_trecscan.c``, ``_trecroute.c`` (the router of runs larger than memory, :mod:`rankwise.pipeline.routed`) and
``_trecpairs.c`` (the search for a repeated (query, doc) pair)."""

from setuptools import Extension, setup

rowops = Extension(
    "rankwise.engine._rowops", ["src/rankwise/engine/_rowops.c", "src/rankwise/engine/_rowranges.c"], optional=True,
    extra_compile_args=["-O3", "-pthread"], extra_link_args=["-pthread"],
    depends=["src/rankwise/engine/_threads.h", "src/rankwise/engine/_sorting.h", "src/rankwise/engine/_chunks.h",
             "src/rankwise/engine/_buffers.h"],
)
trecscan = Extension(
    "rankwise.io._trecscan", ["src/rankwise/io/_trecscan.c", "src/rankwise/io/_trecroute.c",
                           "src/rankwise/io/_trecpairs.c"], optional=True,
    extra_compile_args=["-O3", "-pthread"], extra_link_args=["-pthread"],
    depends=["src/rankwise/engine/_threads.h", "src/rankwise/engine/_chunks.h", "src/rankwise/io/_dict.h"],
)
setup(ext_modules=[rowops, trecscan])
