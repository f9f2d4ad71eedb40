"""The sizes of the projections in ``imported_sizes.py``, kept in their own module as a model's config is."""

D_MODEL = 128
TOKENS = 16
COL_TILE = 64
N_OUT = 2**21
N_OUT_ODD = 2**21 + 32
