"""Builds the optional C extension ``rankwise._rowops`` (plain C, no numpy headers); the rest is in pyproject.toml.

``optional=True``: where no C compiler is found, rankwise installs without it and runs the same operations in numpy
(:mod:`rankwise.rowops`)."""

from setuptools import Extension, setup

rowops = Extension("rankwise._rowops", ["src/rankwise/_rowops.c"], optional=True, extra_compile_args=["-O3"])
setup(ext_modules=[rowops])
