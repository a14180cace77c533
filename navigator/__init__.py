"""navigator layer of litnav."""
