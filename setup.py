"""Builds the optional C extension ``rankwise.engine._rowops`` (plain C, no numpy headers); the rest is in
pyproject.toml.

``optional=True``: where no C compiler is found, rankwise installs without it and runs the same operations in numpy
(:mod:`rankwise.engine.rowops`)."""

from setuptools import Extension, setup

rowops = Extension(
    "rankwise.engine._rowops", ["src/rankwise/engine/_rowops.c"], optional=True, extra_compile_args=["-O3"]
)
setup(ext_modules=[rowops])
