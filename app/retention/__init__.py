"""What is kept and what fades: the retention supervisor, the label a new memory gets, and
forgetting (the one act that deletes, and only when asked)."""
