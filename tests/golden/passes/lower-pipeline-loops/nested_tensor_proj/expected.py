# pypto-verify IR (Form 2)
import pypto.language as pl


@pl.jit
def proj(x: pl.Tensor[[16, 2048], pl.BF16], w: pl.Tensor[[256, 2048], pl.BF16], y: pl.Out[pl.Tensor[[16, 256], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="proj"):
        acc: pl.Tile[[16, 256], pl.FP32, pl.Mem.Acc] = pl.tile.create([16, 256], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        for kb, (acc__iter_v1,) in pl.range(0, 8, 2, init_values=(acc,)):
            k0 = kb * 256
            xa: pl.Tile[[16, 256], pl.BF16, pl.Mem.Mat] = pl.tile.load(x, [0, k0], [16, 256], [16, 256], target_memory=pl.Mem.Mat, attrs={"pipeline_membership": "2:0"})
            wb: pl.Tile[[256, 256], pl.BF16, pl.Mem.Mat] = pl.tile.load(w, [0, k0], [256, 256], [256, 256], target_memory=pl.Mem.Mat, attrs={"pipeline_membership": "2:0"})
            if k0 == 0:
                wb_t: pl.Tile[[256, 256], pl.BF16, pl.Mem.Mat] = pl.tile.transpose_view(wb, attrs={"pipeline_membership": "2:0"})
                acc__l0_init: pl.Tile[[16, 256], pl.FP32, pl.Mem.Acc] = pl.tile.create([16, 256], dtype=pl.FP32, target_memory=pl.Mem.Acc, attrs={"pipeline_membership": "2:0"})
                for acc__l0_ko, (acc__l0_c,) in pl.range(0, 256, 128, init_values=(acc__l0_init,)):
                    acc__l0_a: pl.Tile[[16, 64], pl.BF16, pl.Mem.Left] = pl.tile.extract(xa, 0, acc__l0_ko, [16, 64], target_memory=pl.Mem.Left, attrs={"pipeline_membership": "0:0;2:0"})
                    acc__l0_b: pl.Tile[[64, 256], pl.BF16, pl.Mem.Right] = pl.tile.extract(wb_t, acc__l0_ko, 0, [64, 256], target_memory=pl.Mem.Right, attrs={"pipeline_membership": "0:0;2:0"})
                    if acc__l0_ko == 0:
                        acc__l0_c_first: pl.Tile[[16, 256], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(acc__l0_a, acc__l0_b)
                        acc__l0_c_phi: pl.Tile[[16, 256], pl.FP32, pl.Mem.Acc] = pl.yield_(acc__l0_c_first)
                    else:
                        acc__l0_c_acc: pl.Tile[[16, 256], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(acc__l0_c, acc__l0_a, acc__l0_b)
                        acc__l0_c_phi: pl.Tile[[16, 256], pl.FP32, pl.Mem.Acc] = pl.yield_(acc__l0_c_acc)
                    acc__l0_a_2: pl.Tile[[16, 64], pl.BF16, pl.Mem.Left] = pl.tile.extract(xa, 0, acc__l0_ko + 64, [16, 64], target_memory=pl.Mem.Left, attrs={"pipeline_membership": "0:1;2:0"})
                    acc__l0_b_2: pl.Tile[[64, 256], pl.BF16, pl.Mem.Right] = pl.tile.extract(wb_t, acc__l0_ko + 64, 0, [64, 256], target_memory=pl.Mem.Right, attrs={"pipeline_membership": "0:1;2:0"})
                    if acc__l0_ko + 64 == 0:
                        acc__l0_c_first_1: pl.Tile[[16, 256], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(acc__l0_a_2, acc__l0_b_2)
                        acc__l0_c_phi_1: pl.Tile[[16, 256], pl.FP32, pl.Mem.Acc] = pl.yield_(acc__l0_c_first_1)
                    else:
                        acc__l0_c_acc_2: pl.Tile[[16, 256], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(acc__l0_c_phi, acc__l0_a_2, acc__l0_b_2)
                        acc__l0_c_phi_1: pl.Tile[[16, 256], pl.FP32, pl.Mem.Acc] = pl.yield_(acc__l0_c_acc_2)
                    acc__ssa_v2: pl.Tile[[16, 256], pl.FP32, pl.Mem.Acc] = pl.yield_(acc__l0_c_phi_1)
                acc__phi_v4: pl.Tile[[16, 256], pl.FP32, pl.Mem.Acc] = pl.yield_(acc__ssa_v2)
            else:
                wb_t_1: pl.Tile[[256, 256], pl.BF16, pl.Mem.Mat] = pl.tile.transpose_view(wb, attrs={"pipeline_membership": "2:0"})
                for acc__l0_ko_1, (acc__l0_c_1,) in pl.range(0, 256, 128, init_values=(acc__iter_v1,)):
                    acc__l0_a_1: pl.Tile[[16, 64], pl.BF16, pl.Mem.Left] = pl.tile.extract(xa, 0, acc__l0_ko_1, [16, 64], target_memory=pl.Mem.Left, attrs={"pipeline_membership": "1:0;2:0"})
                    acc__l0_b_1: pl.Tile[[64, 256], pl.BF16, pl.Mem.Right] = pl.tile.extract(wb_t_1, acc__l0_ko_1, 0, [64, 256], target_memory=pl.Mem.Right, attrs={"pipeline_membership": "1:0;2:0"})
                    acc__l0_c_acc_1: pl.Tile[[16, 256], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(acc__l0_c_1, acc__l0_a_1, acc__l0_b_1)
                    acc__l0_a_3: pl.Tile[[16, 64], pl.BF16, pl.Mem.Left] = pl.tile.extract(xa, 0, acc__l0_ko_1 + 64, [16, 64], target_memory=pl.Mem.Left, attrs={"pipeline_membership": "1:1;2:0"})
                    acc__l0_b_3: pl.Tile[[64, 256], pl.BF16, pl.Mem.Right] = pl.tile.extract(wb_t_1, acc__l0_ko_1 + 64, 0, [64, 256], target_memory=pl.Mem.Right, attrs={"pipeline_membership": "1:1;2:0"})
                    acc__l0_c_acc_3: pl.Tile[[16, 256], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(acc__l0_c_acc_1, acc__l0_a_3, acc__l0_b_3)
                    acc__ssa_v3: pl.Tile[[16, 256], pl.FP32, pl.Mem.Acc] = pl.yield_(acc__l0_c_acc_3)
                acc__phi_v4: pl.Tile[[16, 256], pl.FP32, pl.Mem.Acc] = pl.yield_(acc__ssa_v3)
            k0_1 = (kb + 1) * 256
            xa_1: pl.Tile[[16, 256], pl.BF16, pl.Mem.Mat] = pl.tile.load(x, [0, k0_1], [16, 256], [16, 256], target_memory=pl.Mem.Mat, attrs={"pipeline_membership": "2:1"})
            wb_1: pl.Tile[[256, 256], pl.BF16, pl.Mem.Mat] = pl.tile.load(w, [0, k0_1], [256, 256], [256, 256], target_memory=pl.Mem.Mat, attrs={"pipeline_membership": "2:1"})
            if k0_1 == 0:
                wb_t_2: pl.Tile[[256, 256], pl.BF16, pl.Mem.Mat] = pl.tile.transpose_view(wb_1, attrs={"pipeline_membership": "2:1"})
                acc__l0_init_1: pl.Tile[[16, 256], pl.FP32, pl.Mem.Acc] = pl.tile.create([16, 256], dtype=pl.FP32, target_memory=pl.Mem.Acc, attrs={"pipeline_membership": "2:1"})
                for acc__l0_ko_2, (acc__l0_c_2,) in pl.range(0, 256, 128, init_values=(acc__l0_init_1,)):
                    acc__l0_a_4: pl.Tile[[16, 64], pl.BF16, pl.Mem.Left] = pl.tile.extract(xa_1, 0, acc__l0_ko_2, [16, 64], target_memory=pl.Mem.Left, attrs={"pipeline_membership": "0:0;2:1"})
                    acc__l0_b_4: pl.Tile[[64, 256], pl.BF16, pl.Mem.Right] = pl.tile.extract(wb_t_2, acc__l0_ko_2, 0, [64, 256], target_memory=pl.Mem.Right, attrs={"pipeline_membership": "0:0;2:1"})
                    if acc__l0_ko_2 == 0:
                        acc__l0_c_first_2: pl.Tile[[16, 256], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(acc__l0_a_4, acc__l0_b_4)
                        acc__l0_c_phi_2: pl.Tile[[16, 256], pl.FP32, pl.Mem.Acc] = pl.yield_(acc__l0_c_first_2)
                    else:
                        acc__l0_c_acc_4: pl.Tile[[16, 256], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(acc__l0_c_2, acc__l0_a_4, acc__l0_b_4)
                        acc__l0_c_phi_2: pl.Tile[[16, 256], pl.FP32, pl.Mem.Acc] = pl.yield_(acc__l0_c_acc_4)
                    acc__l0_a_5: pl.Tile[[16, 64], pl.BF16, pl.Mem.Left] = pl.tile.extract(xa_1, 0, acc__l0_ko_2 + 64, [16, 64], target_memory=pl.Mem.Left, attrs={"pipeline_membership": "0:1;2:1"})
                    acc__l0_b_5: pl.Tile[[64, 256], pl.BF16, pl.Mem.Right] = pl.tile.extract(wb_t_2, acc__l0_ko_2 + 64, 0, [64, 256], target_memory=pl.Mem.Right, attrs={"pipeline_membership": "0:1;2:1"})
                    if acc__l0_ko_2 + 64 == 0:
                        acc__l0_c_first_3: pl.Tile[[16, 256], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(acc__l0_a_5, acc__l0_b_5)
                        acc__l0_c_phi_3: pl.Tile[[16, 256], pl.FP32, pl.Mem.Acc] = pl.yield_(acc__l0_c_first_3)
                    else:
                        acc__l0_c_acc_5: pl.Tile[[16, 256], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(acc__l0_c_phi_2, acc__l0_a_5, acc__l0_b_5)
                        acc__l0_c_phi_3: pl.Tile[[16, 256], pl.FP32, pl.Mem.Acc] = pl.yield_(acc__l0_c_acc_5)
                    acc__ssa_v2_1: pl.Tile[[16, 256], pl.FP32, pl.Mem.Acc] = pl.yield_(acc__l0_c_phi_3)
                acc__phi_v4_1: pl.Tile[[16, 256], pl.FP32, pl.Mem.Acc] = pl.yield_(acc__ssa_v2_1)
            else:
                wb_t_3: pl.Tile[[256, 256], pl.BF16, pl.Mem.Mat] = pl.tile.transpose_view(wb_1, attrs={"pipeline_membership": "2:1"})
                for acc__l0_ko_3, (acc__l0_c_3,) in pl.range(0, 256, 128, init_values=(acc__phi_v4,)):
                    acc__l0_a_6: pl.Tile[[16, 64], pl.BF16, pl.Mem.Left] = pl.tile.extract(xa_1, 0, acc__l0_ko_3, [16, 64], target_memory=pl.Mem.Left, attrs={"pipeline_membership": "1:0;2:1"})
                    acc__l0_b_6: pl.Tile[[64, 256], pl.BF16, pl.Mem.Right] = pl.tile.extract(wb_t_3, acc__l0_ko_3, 0, [64, 256], target_memory=pl.Mem.Right, attrs={"pipeline_membership": "1:0;2:1"})
                    acc__l0_c_acc_6: pl.Tile[[16, 256], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(acc__l0_c_3, acc__l0_a_6, acc__l0_b_6)
                    acc__l0_a_7: pl.Tile[[16, 64], pl.BF16, pl.Mem.Left] = pl.tile.extract(xa_1, 0, acc__l0_ko_3 + 64, [16, 64], target_memory=pl.Mem.Left, attrs={"pipeline_membership": "1:1;2:1"})
                    acc__l0_b_7: pl.Tile[[64, 256], pl.BF16, pl.Mem.Right] = pl.tile.extract(wb_t_3, acc__l0_ko_3 + 64, 0, [64, 256], target_memory=pl.Mem.Right, attrs={"pipeline_membership": "1:1;2:1"})
                    acc__l0_c_acc_7: pl.Tile[[16, 256], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(acc__l0_c_acc_6, acc__l0_a_7, acc__l0_b_7)
                    acc__ssa_v3_1: pl.Tile[[16, 256], pl.FP32, pl.Mem.Acc] = pl.yield_(acc__l0_c_acc_7)
                acc__phi_v4_1: pl.Tile[[16, 256], pl.FP32, pl.Mem.Acc] = pl.yield_(acc__ssa_v3_1)
            acc__rv_v5: pl.Tile[[16, 256], pl.FP32, pl.Mem.Acc] = pl.yield_(acc__phi_v4_1)
        y = pl.tile.store(acc__rv_v5, [0, 0], y)
    return y
