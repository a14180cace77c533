"""The installed litnav version, for servers and reports."""

from __future__ import annotations


def package_version() -> str:
    """The version of the installed ``litnav`` distribution (``importlib.metadata``), or
    ``"unknown"`` when it is run from a source tree that was never installed."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("litnav")
    except PackageNotFoundError:
        return "unknown"
