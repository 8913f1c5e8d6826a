"""Settings for the test run: the real settings, pointed away from the user's data.

The environment must be set before continuity.settings is read, hence this small module
instead of a fixture.
"""

import atexit
import os
import shutil
import tempfile

if "CONTINUITY_DATA_DIR" not in os.environ:
    _data_dir = tempfile.mkdtemp(prefix="continuity-test-")
    os.environ["CONTINUITY_DATA_DIR"] = _data_dir
    atexit.register(shutil.rmtree, _data_dir, ignore_errors=True)

from continuity.settings import *  # noqa: E402,F403

# Password hashing is deliberately slow; the tests sign in often and test nothing about it.
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
# Tasks run inline in unit tests; integration tests start real workers.
CELERY_TASK_ALWAYS_EAGER = True
