"""corpus layer of litnav."""
