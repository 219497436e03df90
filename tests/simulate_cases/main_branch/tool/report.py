from tool.cli import main

RESULT = main


def show(x):
    print(x)
