"""Z3 obligations over accumulator sites: site extraction, encoding, discharge (PV101-PV105)."""
