import os

import pkg
from pkg import __name__ as parent_name

HERE = os.path.dirname(pkg.__file__)
SEARCH = list(pkg.__path__)
SPEC = pkg.__spec__.name
