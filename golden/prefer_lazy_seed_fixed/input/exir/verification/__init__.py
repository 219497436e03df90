"""Verifiers that check a graph only uses operators of its dialect."""
