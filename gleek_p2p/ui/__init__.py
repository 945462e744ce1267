"""The console UI: the prompt_toolkit table (``app``), its screen and panes, and the replay.

Modules: ``app`` (``HumanPlayer``, ``run_with_ui``, ``UserQuit``), ``screen``
(the full-screen application), ``render`` (the pure panes of ``panes``), ``choices`` (the
keyboard chooser), ``narrate`` (events in words), ``replay`` (``gleek replay``),
``talk`` (``gleek bot``'s lines on stderr).
Nothing is imported here so that ``gleek verify`` never loads prompt_toolkit.
"""
