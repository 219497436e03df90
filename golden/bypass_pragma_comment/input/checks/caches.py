from . import Error, Tags, Warning, register  # type: ignore[attr-defined]


@register(Tags.caches)
def check_default_cache():
    return [Error("no default cache"), Warning("slow cache")]
