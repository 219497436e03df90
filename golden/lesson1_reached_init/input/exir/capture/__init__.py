from exir.capture._capture import capture
from exir.capture._config import EdgeCompileConfig

__all__ = ["capture", "EdgeCompileConfig"]
