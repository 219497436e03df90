from pkg import _json
import pkg
HERE = pkg.__file__
NAME = pkg.__name__
