from .messages import Error, Warning
from .registry import Tags, register, run_checks

import checks.caches  # noqa: F401  (registers its checks)
