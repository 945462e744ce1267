"""The screen's panes, one module each: ``header``, ``table``, ``ledger``, ``hand``, ``choice``.

``scene`` holds what they share (the ``Scene``, the rows, the line helpers),
``lobby`` the table's lines before the first hand. ``ui.render`` gathers the
public names.
"""
