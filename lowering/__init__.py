"""Passes over the IR that mirror PyPTO's tile stage, one module per pass; `pipeline` lists them."""
