"""``python -m litnav.cli``: the same as the ``litnav`` console script."""

from litnav.cli import main

main()
