"""``python -m pertlab``: the ``pertlab`` command (:func:`pertlab.cli.main`), for a Python
whose scripts directory is not on the PATH."""

from .cli import main

main()
