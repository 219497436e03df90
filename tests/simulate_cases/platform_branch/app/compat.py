from app.core import VALUE
cached_property = property
