"""reranker layer of litnav."""
