"""Configuration; importing the program module registers its passes."""
from app.program import Program


class EdgeConfig:
    program_type = Program
