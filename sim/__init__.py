"""PTO-AS parser and interpreter on one byte arena per memory space (PV201, PV202)."""
