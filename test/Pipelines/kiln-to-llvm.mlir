// The registered kiln-to-llvm pipeline (tile-allocate-shared-memory,
// convert-scf-to-cf, convert-tile-to-llvm, cleanups), then kiln-translate.
// The AMD runs rewrite the 32-lane layouts to 64 lanes with sed.

// REQUIRES: nvidia, amd
// RUN: kiln-opt %s --kiln-to-llvm="target=cuda:sm_90a num-warps=4" | FileCheck %s --check-prefix=LLVM
// RUN: kiln-opt %s --kiln-to-llvm="target=cuda:sm_90a num-warps=4" | kiln-translate --target=cuda:sm_90a --emit=ptx | FileCheck %s --check-prefix=PTX
// RUN: %if ptxas %{ kiln-opt %s --kiln-to-llvm="target=cuda:sm_90a num-warps=4" | kiln-translate --target=cuda:sm_90a --emit=cubin -o %t.cubin %}
// RUN: %if ptxas %{ llvm-readobj --file-headers --symbols %t.cubin | FileCheck %s --check-prefix=CUBIN %}

// RUN: sed -e 's/threadsPerWarp = \[32\]/threadsPerWarp = [64]/g; s/tile.threads_per_warp = 32/tile.threads_per_warp = 64/' %s > %t.wave64.mlir
// RUN: kiln-opt %t.wave64.mlir --kiln-to-llvm="target=hip:gfx942 num-warps=4" | kiln-translate --target=hip:gfx942 --emit=amdgcn | FileCheck %s --check-prefixes=GCN,GFX942
// RUN: kiln-opt %t.wave64.mlir --kiln-to-llvm="target=hip:gfx950 num-warps=4" | kiln-translate --target=hip:gfx950 --emit=amdgcn | FileCheck %s --check-prefixes=GCN,GFX950
// RUN: kiln-opt %t.wave64.mlir --kiln-to-llvm="target=hip:gfx942" | kiln-translate --target=hip:gfx942 --emit=hsaco -o %t.gfx942.hsaco
// RUN: llvm-readobj --file-headers %t.gfx942.hsaco | FileCheck %s --check-prefixes=ELF,ELF942
// RUN: kiln-opt %t.wave64.mlir --kiln-to-llvm="target=hip:gfx950" | kiln-translate --target=hip:gfx950 --emit=hsaco -o %t.gfx950.hsaco
// RUN: llvm-readobj --file-headers %t.gfx950.hsaco | FileCheck %s --check-prefixes=ELF,ELF950

// The pipeline leaves only LLVM-dialect IR (plus NVVM/ROCDL) behind.
// LLVM: module attributes {tile.num_warps = 4 : i32, tile.shared = 4096 : i32, tile.threads_per_warp = 32 : i32}
// LLVM: llvm.mlir.global external @global_smem() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
// LLVM: llvm.func @add_vec(%arg0: !llvm.ptr<1> {llvm.align = 16 : i64}
// LLVM-SAME: nvvm.kernel, nvvm.maxntid = array<i32: 128, 1, 1>
// LLVM-NOT: tile.
// LLVM-NOT: builtin.unrealized_conversion_cast
// LLVM-NOT: cf.
// LLVM-NOT: arith.

// PTX: .target sm_90a
// PTX: .extern .shared .align 16 .b8 global_smem[];
// PTX-LABEL: .visible .entry add_vec(
// PTX: .param .u64 .ptr .global .align 16 add_vec_param_0
// PTX: .maxntid 128, 1, 1
// PTX: mov.u32 {{.*}}, %ctaid.x;
// PTX-COUNT-4: ld.global.v4.{{[bf]}}32
// PTX-NOT: ld.global
// PTX: add{{(.rn)?}}.f32
// PTX-COUNT-2: st.global.v4.{{[bf]}}32
// PTX-NOT: st.global
// PTX: ret;
// Unaligned, masked: scalar loads; exp is ex2.approx; the conversion goes
// through shared memory between two barriers.
// PTX-LABEL: .visible .entry masked_transpose(
// PTX-NOT: ld.global.v
// PTX: ld.global.{{[bf]}}32
// PTX: ex2.approx.f32
// PTX: bar.sync 0;
// PTX: st.shared
// PTX: bar.sync 0;
// PTX: ld.shared.{{[bf]}}32
// PTX: st.global.{{[bf]}}32
// PTX-NOT: st.global.v

// CUBIN: Class: 64-bit
// CUBIN: Type: Executable
// CUBIN: Machine: EM_CUDA
// CUBIN-DAG: Name: add_vec
// CUBIN-DAG: Name: masked_transpose

// GFX942: .amdgcn_target "amdgcn-amd-amdhsa--gfx942"
// GFX950: .amdgcn_target "amdgcn-amd-amdhsa--gfx950"
// GCN-LABEL: add_vec:
// GCN-COUNT-2: global_load_dwordx4
// GCN: v_add_f32
// GCN: global_store_dwordx4
// GCN-NOT: s_barrier
// GCN: .amdhsa_kernel add_vec
// GCN-LABEL: masked_transpose:
// GCN-NOT: global_load_dwordx4
// GCN: global_load_dword v
// GCN: v_exp_f32
// GCN: s_barrier
// GCN: ds_write
// GCN: s_barrier
// GCN: ds_read
// GCN: global_store_dword v
// GCN: .amdhsa_kernel masked_transpose
// GCN: .max_flat_workgroup_size: 256

// ELF: Format: elf64-amdgpu
// ELF: Type: SharedObject
// ELF: Machine: EM_AMDGPU
// ELF942: EF_AMDGPU_MACH_AMDGCN_GFX942
// ELF950: EF_AMDGPU_MACH_AMDGCN_GFX950

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#m = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @add_vec(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %y: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %out: !tile.ptr<f32> {tile.divisibility = 16 : i32}) {
    %pid = tile.program_id 0
    %c1024 = arith.constant 1024 : i32
    %base = arith.muli %pid, %c1024 : i32
    %r = tile.arange 0, 1024 : tensor<1024xi32, #l>
    %bs = tile.splat %base : tensor<1024xi32, #l>
    %offs = arith.addi %bs, %r : tensor<1024xi32, #l>
    %xs = tile.splat %x : tensor<1024x!tile.ptr<f32>, #l>
    %xp = tile.addptr %xs, %offs : tensor<1024x!tile.ptr<f32>, #l>, tensor<1024xi32, #l>
    %ys = tile.splat %y : tensor<1024x!tile.ptr<f32>, #l>
    %yp = tile.addptr %ys, %offs : tensor<1024x!tile.ptr<f32>, #l>, tensor<1024xi32, #l>
    %a = tile.load %xp : tensor<1024x!tile.ptr<f32>, #l>
    %b = tile.load %yp : tensor<1024x!tile.ptr<f32>, #l>
    %s = arith.addf %a, %b : tensor<1024xf32, #l>
    %os = tile.splat %out : tensor<1024x!tile.ptr<f32>, #l>
    %op = tile.addptr %os, %offs : tensor<1024x!tile.ptr<f32>, #l>, tensor<1024xi32, #l>
    tile.store %op, %s : tensor<1024x!tile.ptr<f32>, #l>
    return
  }
  func.func @masked_transpose(%x: !tile.ptr<f32>, %out: !tile.ptr<f32>, %n: i32) {
    %r = tile.arange 0, 1024 : tensor<1024xi32, #l>
    %ns = tile.splat %n : tensor<1024xi32, #l>
    %mask = arith.cmpi slt, %r, %ns : tensor<1024xi32, #l>
    %xs = tile.splat %x : tensor<1024x!tile.ptr<f32>, #l>
    %xp = tile.addptr %xs, %r : tensor<1024x!tile.ptr<f32>, #l>, tensor<1024xi32, #l>
    %a = tile.load %xp, %mask : tensor<1024x!tile.ptr<f32>, #l>
    %e = math.exp %a : tensor<1024xf32, #l>
    %c = tile.convert_layout %e : tensor<1024xf32, #l> -> tensor<1024xf32, #m>
    %rm = tile.arange 0, 1024 : tensor<1024xi32, #m>
    %os = tile.splat %out : tensor<1024x!tile.ptr<f32>, #m>
    %op = tile.addptr %os, %rm : tensor<1024x!tile.ptr<f32>, #m>, tensor<1024xi32, #m>
    tile.store %op, %c : tensor<1024x!tile.ptr<f32>, #m>
    return
  }
}
