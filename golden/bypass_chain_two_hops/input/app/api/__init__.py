from .widgets import Widget

__all__ = ["Widget"]
