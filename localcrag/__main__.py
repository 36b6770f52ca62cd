"""``python -m localcrag`` is the same as the ``localcrag`` command."""

from localcrag.cli.main import main

raise SystemExit(main())
