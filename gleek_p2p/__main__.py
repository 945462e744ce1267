"""``python -m gleek_p2p`` is the ``gleek`` command."""

import sys

from gleek_p2p.cli.gleek import main

sys.exit(main())
