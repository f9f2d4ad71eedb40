"""Datalog engine drivers: `souffle` by subprocess and the embedded `clingo` translator."""

ENGINES = ("auto", "souffle", "clingo")
"""The engine choices: `auto` picks souffle when it is on PATH, else the embedded clingo."""
