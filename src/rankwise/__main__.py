"""``python -m rankwise``: the command line."""

from .cli import main

main()
