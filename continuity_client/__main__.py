import sys

from continuity_client.cli import main

sys.exit(main())
