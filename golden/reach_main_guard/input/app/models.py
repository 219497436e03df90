from app.registry import Registry


class Model:
    pass


def main():
    print(Registry("cli"))


if __name__ == "__main__":
    main()
