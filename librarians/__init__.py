"""librarians layer of litnav."""
