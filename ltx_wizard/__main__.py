"""`python -m ltx_wizard` is the same as the `ltx-wizard` console script."""

import sys

from ltx_wizard.cli import main

sys.exit(main())
