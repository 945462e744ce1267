"""``python -m bench``: every benchmark, one table (see bench/run_all.py)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from run_all import main

raise SystemExit(main())
