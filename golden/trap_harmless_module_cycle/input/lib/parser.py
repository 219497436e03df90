import lib.lexer as lexer


def parse(text):
    return [tok for tok in lexer.tokens(text)]
