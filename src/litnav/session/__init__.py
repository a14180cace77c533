"""Session files: reading, writing and rendering a search session for people."""
