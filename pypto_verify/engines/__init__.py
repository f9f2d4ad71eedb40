"""Datalog engine drivers: `souffle` by subprocess and the embedded `clingo` translator."""
