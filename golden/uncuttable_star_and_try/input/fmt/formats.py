try:
    from fmt.codecs import lookup
except ImportError:  # codecs is optional
    lookup = None

JSON = "json"
CSV = "csv"


def decode(name, data):
    return lookup(name), data
