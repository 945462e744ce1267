"""The ``gleek`` command line: parsing, dispatch, one sentence per error."""
