"""ingest layer of litnav."""
