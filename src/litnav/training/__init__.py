"""Training: teacher-labelled data synthesis, student training and dataset converters."""
