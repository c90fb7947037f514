// REQUIRES: nvidia, amd
// RUN: split-file %s %t
// RUN: kiln-opt %t/nvidia.mlir --convert-tile-to-llvm="target=cuda:sm_80" | FileCheck %t/nvidia.mlir --check-prefixes=CHECK,SM80
// RUN: kiln-opt %t/nvidia.mlir --convert-tile-to-llvm="target=cuda:sm_90a" | FileCheck %t/nvidia.mlir --check-prefixes=CHECK,SM90
// RUN: kiln-opt %t/amd.mlir --convert-tile-to-llvm="target=hip:gfx942" | FileCheck %t/amd.mlir --check-prefixes=CHECK,GFX942
// RUN: kiln-opt %t/amd.mlir --convert-tile-to-llvm="target=hip:gfx950" | FileCheck %t/amd.mlir --check-prefixes=CHECK,GFX950
//
// The instructions, assembled: ptxas takes the sm_90a PTX, and the AMD
// functions become gfx942 / gfx950 code objects.
// RUN: kiln-opt %t/nvidia.mlir --kiln-to-llvm="target=cuda:sm_90a" | kiln-translate --target=cuda:sm_90a --emit=ptx - -o %t/sm90a.ptx
// RUN: FileCheck %t/nvidia.mlir --check-prefix=PTX --input-file=%t/sm90a.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t/sm90a.ptx -o %t/sm90a.cubin %}
// RUN: kiln-opt %t/amd.mlir --kiln-to-llvm="target=hip:gfx942" -o %t/gfx942.mlir
// RUN: kiln-translate --target=hip:gfx942 --emit=amdgcn %t/gfx942.mlir | FileCheck %t/amd.mlir --check-prefix=GCN942
// RUN: kiln-translate --target=hip:gfx942 --emit=hsaco %t/gfx942.mlir -o %t/gfx942.hsaco
// RUN: kiln-opt %t/amd.mlir --kiln-to-llvm="target=hip:gfx950" -o %t/gfx950.mlir
// RUN: kiln-translate --target=hip:gfx950 --emit=amdgcn %t/gfx950.mlir | FileCheck %t/amd.mlir --check-prefix=GCN950
// RUN: kiln-translate --target=hip:gfx950 --emit=hsaco %t/gfx950.mlir -o %t/gfx950.hsaco

// fp8 conversions use the chip's packed instructions where it has them for
// the format (sm_90a: the OCP formats, two values an instruction; gfx942: the
// FNUZ formats, gfx950: the OCP ones, both through f32, clamping each source
// to the largest finite magnitude first, NaN kept) and are integer arithmetic
// on the codes elsewhere (LLVM has no fp8 float types; the values are i8):
// up, the exponent rebiased into an f32 (e4m3: +120 << 23), the mantissa moved
// up 20 bits, subnormals as mantissa * 2^-9; down, round to nearest even
// (llvm.intr.roundeven below the smallest normal) or toward zero
// (llvm.intr.trunc, always emulated), saturating at the largest code (0x7E,
// 448). Every emulated result is checked on the CPU against a table by
// test/Python/test_fp8_conversions.py, which also runs these lowerings with
// a model of each instruction in place of the instruction; the NVIDIA ones
// are checked against torch by test/gpu/test_fp8_gpu.py.

//--- nvidia.mlir
#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  // CHECK-LABEL: llvm.func @up(
  // CHECK-NOT: f8E4M3FN
  // SM80: llvm.zext %{{.*}} : i8 to i32
  // SM80: %[[SH:.*]] = llvm.mlir.constant(20 : i32)
  // SM80: llvm.shl %{{.*}}, %[[SH]]
  // SM80: %[[BIAS:.*]] = llvm.mlir.constant(120 : i32)
  // SM80: llvm.add %{{.*}}, %[[BIAS]]
  // SM80: %[[SUB:.*]] = llvm.mlir.constant(0.001953125 : f32)
  // SM80: llvm.uitofp
  // SM80: llvm.fmul %{{.*}}, %[[SUB]]
  // SM80: llvm.bitcast %{{.*}} : i32 to f32
  // Registers 0 and 1 into one i16, register 0 in the low byte (the low f16).
  // SM90: %[[R0:.*]] = llvm.zext %{{.*}} : i8 to i16
  // SM90: %[[R1:.*]] = llvm.zext %{{.*}} : i8 to i16
  // SM90: %[[HI:.*]] = llvm.shl %[[R1]], %{{.*}} : i16
  // SM90: %[[P:.*]] = llvm.or %[[R0]], %[[HI]] : i16
  // SM90: %[[H:.*]] = llvm.call_intrinsic "llvm.nvvm.e4m3x2.to.f16x2.rn"(%[[P]]) : (i16) -> vector<2xf16>
  // SM90: llvm.extractelement %[[H]]
  // SM90: llvm.fpext %{{.*}} : f16 to f32
  // SM90: llvm.call_intrinsic "llvm.nvvm.e4m3x2.to.f16x2.rn"
  // SM90-NOT: llvm.call_intrinsic
  // SM90-NOT: llvm.uitofp
  // CHECK: llvm.return
  func.func @up(%x: tensor<512xf8E4M3FN, #l>) -> tensor<512xf32, #l> {
    %y = arith.extf %x : tensor<512xf8E4M3FN, #l> to tensor<512xf32, #l>
    return %y : tensor<512xf32, #l>
  }
  // bf16 results through f16 and f32, exactly.
  // CHECK-LABEL: llvm.func @up_bf16
  // SM80-NOT: llvm.call_intrinsic
  // SM90: llvm.call_intrinsic "llvm.nvvm.e5m2x2.to.f16x2.rn"
  // SM90: llvm.fpext %{{.*}} : f16 to f32
  // SM90: llvm.fptrunc %{{.*}} : f32 to bf16
  // CHECK: llvm.return
  func.func @up_bf16(%x: tensor<512xf8E5M2, #l>) -> tensor<512xbf16, #l> {
    %y = arith.extf %x : tensor<512xf8E5M2, #l> to tensor<512xbf16, #l>
    return %y : tensor<512xbf16, #l>
  }
  // The first f32 operand goes to the upper byte: register 1, then 0.
  // CHECK-LABEL: llvm.func @down_nearest_even
  // SM80: llvm.intr.roundeven
  // SM80: llvm.mlir.constant(126 : i32)
  // SM80: llvm.trunc %{{.*}} : i32 to i8
  // SM90: %[[X0:.*]] = llvm.extractvalue %arg0[0]
  // SM90: %[[X1:.*]] = llvm.extractvalue %arg0[1]
  // SM90: %[[C:.*]] = llvm.call_intrinsic "llvm.nvvm.ff.to.e4m3x2.rn"(%[[X1]], %[[X0]]) : (f32, f32) -> i16
  // SM90: llvm.trunc %[[C]] : i16 to i8
  // SM90: %[[UP:.*]] = llvm.lshr %[[C]]
  // SM90: llvm.trunc %[[UP]] : i16 to i8
  // SM90: llvm.call_intrinsic "llvm.nvvm.ff.to.e4m3x2.rn"
  // SM90-NOT: llvm.intr.roundeven
  // CHECK: llvm.return
  func.func @down_nearest_even(%x: tensor<512xf32, #l>) -> tensor<512xf8E4M3FN, #l> {
    %y = arith.truncf %x : tensor<512xf32, #l> to tensor<512xf8E4M3FN, #l>
    return %y : tensor<512xf8E4M3FN, #l>
  }
  // f16 pairs directly (register 0 the low f16, the low byte).
  // CHECK-LABEL: llvm.func @down_f16
  // SM80: llvm.fpext %{{.*}} : f16 to f32
  // SM80: llvm.intr.roundeven
  // SM90: %[[ONE:.*]] = llvm.mlir.constant(1 : i32) : i32
  // SM90: %[[V:.*]] = llvm.insertelement %{{.*}}, %{{.*}}[%[[ONE]] : i32] : vector<2xf16>
  // SM90: llvm.call_intrinsic "llvm.nvvm.f16x2.to.e5m2x2.rn"(%[[V]]) : (vector<2xf16>) -> i16
  // SM90-NOT: llvm.intr.roundeven
  // CHECK: llvm.return
  func.func @down_f16(%x: tensor<512xf16, #l>) -> tensor<512xf8E5M2, #l> {
    %y = arith.truncf %x : tensor<512xf16, #l> to tensor<512xf8E5M2, #l>
    return %y : tensor<512xf8E5M2, #l>
  }
  // CHECK-LABEL: llvm.func @down_bf16
  // SM90: llvm.fpext %{{.*}} : bf16 to f32
  // SM90: llvm.call_intrinsic "llvm.nvvm.ff.to.e4m3x2.rn"
  // SM90-NOT: llvm.intr.roundeven
  // CHECK: llvm.return
  func.func @down_bf16(%x: tensor<512xbf16, #l>) -> tensor<512xf8E4M3FN, #l> {
    %y = arith.truncf %x : tensor<512xbf16, #l> to tensor<512xf8E4M3FN, #l>
    return %y : tensor<512xf8E4M3FN, #l>
  }
  // No FNUZ instruction: integer arithmetic on both chips.
  // CHECK-LABEL: llvm.func @down_fnuz(
  // CHECK-NOT: llvm.call_intrinsic
  // CHECK: llvm.intr.roundeven
  // CHECK: llvm.return
  func.func @down_fnuz(%x: tensor<512xf32, #l>) -> tensor<512xf8E4M3FNUZ, #l> {
    %y = arith.truncf %x : tensor<512xf32, #l> to tensor<512xf8E4M3FNUZ, #l>
    return %y : tensor<512xf8E4M3FNUZ, #l>
  }
  // One value: the pair is the value twice.
  // CHECK-LABEL: llvm.func @down_scalar(
  // SM80: llvm.intr.roundeven
  // SM90: llvm.call_intrinsic "llvm.nvvm.ff.to.e4m3x2.rn"(%arg0, %arg0)
  // CHECK: llvm.return
  func.func @down_scalar(%x: f32) -> f8E4M3FN {
    %y = arith.truncf %x : f32 to f8E4M3FN
    return %y : f8E4M3FN
  }
  // Toward zero is never an instruction.
  // CHECK-LABEL: llvm.func @down_toward_zero_scalar
  // CHECK-NOT: llvm.intr.roundeven
  // CHECK-NOT: llvm.call_intrinsic
  // CHECK: llvm.intr.trunc
  // CHECK: llvm.trunc %{{.*}} : i32 to i8
  func.func @down_toward_zero_scalar(%x: f32) -> f8E5M2 {
    %y = arith.truncf %x toward_zero : f32 to f8E5M2
    return %y : f8E5M2
  }
}
// PTX-LABEL: .func {{.*}} up(
// PTX: cvt.rn.f16x2.e4m3x2
// PTX-LABEL: .func {{.*}} up_bf16(
// PTX: cvt.rn.f16x2.e5m2x2
// PTX-LABEL: .func {{.*}} down_nearest_even(
// PTX: cvt.rn.satfinite.e4m3x2.f32
// PTX-LABEL: .func {{.*}} down_f16(
// PTX: cvt.rn.satfinite.e5m2x2.f16x2
// PTX-LABEL: .func {{.*}} down_bf16(
// PTX: cvt.rn.satfinite.e4m3x2.f32
// PTX-LABEL: .func {{.*}} down_fnuz(
// PTX-NOT: satfinite
// PTX-LABEL: .func {{.*}} down_scalar(
// PTX: cvt.rn.satfinite.e4m3x2.f32

//--- amd.mlir
#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 64 : i32} {
  // Four codes make one word, register k its byte k; word half 0, then 1.
  // CHECK-LABEL: llvm.func @up_fnuz
  // GFX942: %[[W:.*]] = llvm.bitcast %{{.*}} : vector<4xi8> to i32
  // GFX942: %[[P0:.*]] = rocdl.cvt.pk.f32.fp8 %[[W]][false] : vector<2xf32>
  // GFX942: rocdl.cvt.pk.f32.fp8 %[[W]][true] : vector<2xf32>
  // GFX942-NOT: llvm.uitofp
  // GFX950-NOT: rocdl.cvt
  // GFX950: llvm.uitofp
  // CHECK: llvm.return
  func.func @up_fnuz(%x: tensor<1024xf8E4M3FNUZ, #l>) -> tensor<1024xf32, #l> {
    %y = arith.extf %x : tensor<1024xf8E4M3FNUZ, #l> to tensor<1024xf32, #l>
    return %y : tensor<1024xf32, #l>
  }
  // CHECK-LABEL: llvm.func @up_ocp_bf16
  // GFX942-NOT: rocdl.cvt
  // GFX942: llvm.uitofp
  // GFX950: rocdl.cvt.pk.f32.bf8 %{{.*}}[false] : vector<2xf32>
  // GFX950: llvm.fptrunc %{{.*}} : f32 to bf16
  // GFX950: rocdl.cvt.pk.f32.bf8 %{{.*}}[true] : vector<2xf32>
  // GFX950-NOT: llvm.uitofp
  // CHECK: llvm.return
  func.func @up_ocp_bf16(%x: tensor<1024xf8E5M2, #l>) -> tensor<1024xbf16, #l> {
    %y = arith.extf %x : tensor<1024xf8E5M2, #l> to tensor<1024xbf16, #l>
    return %y : tensor<1024xbf16, #l>
  }
  // Each source clamped to [-57344, 57344] (gfx942: max / min with NaN
  // selected back), then two sources a word half.
  // CHECK-LABEL: llvm.func @down_fnuz(
  // GFX942-DAG: %[[LO:.*]] = llvm.mlir.constant(-5.734400e+04 : f32)
  // GFX942-DAG: %[[HI:.*]] = llvm.mlir.constant(5.734400e+04 : f32)
  // GFX942: %[[MAX:.*]] = llvm.intr.maxnum(%[[X:.*]], %[[LO]])
  // GFX942: %[[MIN:.*]] = llvm.intr.minnum(%[[MAX]], %[[HI]])
  // GFX942: %[[NAN:.*]] = llvm.fcmp "uno" %[[X]], %[[X]]
  // GFX942: llvm.select %[[NAN]], %[[X]], %[[MIN]]
  // GFX942: %[[W0:.*]] = rocdl.cvt.pk.bf8.f32 %{{.*}}, %{{.*}} -> %{{.*}}[false] : i32
  // GFX942: %[[W1:.*]] = rocdl.cvt.pk.bf8.f32 %{{.*}}, %{{.*}} -> %[[W0]][true] : i32
  // GFX942: llvm.bitcast %[[W1]] : i32 to vector<4xi8>
  // GFX942-NOT: llvm.intr.roundeven
  // GFX950-NOT: rocdl.cvt
  // GFX950: llvm.intr.roundeven
  // CHECK: llvm.return
  func.func @down_fnuz(%x: tensor<1024xf32, #l>) -> tensor<1024xf8E5M2FNUZ, #l> {
    %y = arith.truncf %x : tensor<1024xf32, #l> to tensor<1024xf8E5M2FNUZ, #l>
    return %y : tensor<1024xf8E5M2FNUZ, #l>
  }
  // gfx950 clamps with the NaN-keeping maximum / minimum.
  // CHECK-LABEL: llvm.func @down_ocp_f16
  // GFX942-NOT: rocdl.cvt
  // GFX942: llvm.intr.roundeven
  // GFX950: %[[X:.*]] = llvm.fpext %{{.*}} : f16 to f32
  // GFX950: %[[MAX:.*]] = llvm.intr.maximum(%[[X]], %{{.*}})
  // GFX950: llvm.intr.minimum(%[[MAX]], %{{.*}})
  // GFX950: rocdl.cvt.pk.fp8.f32 %{{.*}}, %{{.*}} -> %{{.*}}[false] : i32
  // GFX950: rocdl.cvt.pk.fp8.f32 %{{.*}}, %{{.*}} -> %{{.*}}[true] : i32
  // GFX950-NOT: llvm.intr.roundeven
  // CHECK: llvm.return
  func.func @down_ocp_f16(%x: tensor<1024xf16, #l>) -> tensor<1024xf8E4M3FN, #l> {
    %y = arith.truncf %x : tensor<1024xf16, #l> to tensor<1024xf8E4M3FN, #l>
    return %y : tensor<1024xf8E4M3FN, #l>
  }
  // One value: half a word, the value twice.
  // CHECK-LABEL: llvm.func @down_scalar(
  // GFX942: %[[C:.*]] = llvm.select
  // GFX942: rocdl.cvt.pk.fp8.f32 %[[C]], %[[C]] -> %{{.*}}[false] : i32
  // GFX942-NOT: rocdl.cvt
  // CHECK: llvm.return
  func.func @down_scalar(%x: f32) -> f8E4M3FNUZ {
    %y = arith.truncf %x : f32 to f8E4M3FNUZ
    return %y : f8E4M3FNUZ
  }
  // CHECK-LABEL: llvm.func @down_toward_zero
  // CHECK-NOT: rocdl.cvt
  // CHECK: llvm.intr.trunc
  // CHECK: llvm.return
  func.func @down_toward_zero(%x: tensor<1024xf32, #l>) -> tensor<1024xf8E4M3FNUZ, #l> {
    %y = arith.truncf %x toward_zero : tensor<1024xf32, #l> to tensor<1024xf8E4M3FNUZ, #l>
    return %y : tensor<1024xf8E4M3FNUZ, #l>
  }
}
// GCN942-LABEL: up_fnuz:
// GCN942: v_cvt_pk_f32_fp8
// GCN942-LABEL: up_ocp_bf16:
// GCN942-NOT: v_cvt_pk
// GCN942-LABEL: down_fnuz:
// GCN942: v_med3_f32
// GCN942: v_cvt_pk_bf8_f32
// GCN942-LABEL: down_ocp_f16:
// GCN942-NOT: v_cvt_pk_fp8
// GCN942-LABEL: down_scalar:
// GCN942: v_cvt_pk_fp8_f32
// GCN950-LABEL: up_fnuz:
// GCN950-NOT: v_cvt_pk
// GCN950-LABEL: up_ocp_bf16:
// GCN950: v_cvt_pk_f32_bf8
// GCN950-LABEL: down_fnuz:
// GCN950-NOT: v_cvt_pk
// GCN950-LABEL: down_ocp_f16:
// GCN950: v_maximum3_f32
// GCN950: v_minimum3_f32
// GCN950: v_cvt_pk_fp8_f32
