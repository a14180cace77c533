"""Core of litnav: settings, query-side records and shared text/IO utilities (the bottom layer)."""
