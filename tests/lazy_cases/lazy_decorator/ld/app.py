lazy from ld.registry import register


@register
def handler():
    return 1
