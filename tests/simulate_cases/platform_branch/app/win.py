from app import CONSOLE
console = CONSOLE
