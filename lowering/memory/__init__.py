"""The memory stage's helpers: what the four memory passes (init-memref, materialize-semantic-aliases,
memory-reuse, allocate-memory-addr) share, none of them a pass itself.

- `memrefs`: definition sites, MemRefs, `tile.alloc` roots, the one MemRef rewrite;
- `lifetimes`: PyPTO's lifetime intervals; `buffer_packing`: the first-fit-decreasing reuse packer;
- `retarget`: the producer-chain retarget planner (PyPTO TopDownRetargeter);
- `yield_fixup`: each loop carry and if phi on one buffer after reuse (PyPTO YieldFixupMutator);
- `acc_alignment` (fixed only): a divergent Acc phi or carry aligned onto one window, or PV001 / PV002;
- `acc_coalescing` (legacy only): PyPTO's accumulator if-phi coalescing.
"""
