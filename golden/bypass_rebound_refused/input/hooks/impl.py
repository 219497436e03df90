def with_logging(f):
    def wrapper(*args):
        print("calling", f.__name__)
        return f(*args)

    return wrapper


def handler(event):
    return event
