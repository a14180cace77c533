"""scorer layer of litnav."""
