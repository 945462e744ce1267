"""Whole sessions and logs: simulate, arena, selfplay, the verify report, the evening's results."""
