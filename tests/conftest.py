"""Tests read English: the locale of the machine that runs them must not change a word."""

import os

# LC_ALL wins over LC_MESSAGES and LANG, here and in every `gleek` a test starts.
os.environ["LC_ALL"] = "C.UTF-8"
