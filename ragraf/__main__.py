"""``python -m ragraf``: the same entry point as the ``ragraf`` console script."""

from ragraf.cli.app import main

main()
