from . import parser


def tokens(text):
    return text.split()


def reparse(text):
    return parser.parse(text)
