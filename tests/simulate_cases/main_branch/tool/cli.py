from tool.core import run


def main():
    return run()


if __name__ == "__main__":
    from tool.report import show
    show(main())
