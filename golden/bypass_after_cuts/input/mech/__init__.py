"""Mechanics: every public class, re-exported."""
from .rigid import Rigid
from .body import Body
from .joints import Joints
