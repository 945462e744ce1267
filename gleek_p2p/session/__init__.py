"""One peer's life at a table: the lobby, the runner, its inbox and notes, the session run."""
