from .options import ModelAdmin
from .sites import site
