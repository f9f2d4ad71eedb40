"""Shared model dimensions for the corpus kernels.

A plain module of integer constants (no kernels, nothing executed): several corpus
scripts import from it the way model folders import a sibling ``config.py``. Every
value is an int or simple integer arithmetic over earlier values.
"""

# decoder geometry (a small dense model)
BATCH = 16
HIDDEN = 2048
NUM_HEADS = 16
NUM_KV_HEADS = 4
HEAD_DIM = 128
Q_HIDDEN = NUM_HEADS * HEAD_DIM
KV_HIDDEN = NUM_KV_HEADS * HEAD_DIM
INTERMEDIATE = 1024
ROPE_DIM = HEAD_DIM // 2

# decode attention
MAX_SEQ = 1024
SEQ_TILE = 256
MAX_SEQ_BLOCKS = MAX_SEQ // SEQ_TILE

# mixture-of-experts geometry (int8 weights)
MOE_HIDDEN = 7168
MOE_INTER = 512
NUM_LOCAL_EXPERTS = 4
MOE_TOKENS = 16

# low-rank attention projections
Q_LORA = 1536
KV_LORA = 512
