// 16-byte direct-to-LDS loads exist on gfx950 only. On gfx942 LLVM's
// instruction selection would abort, so kiln-translate rejects them first.
// REQUIRES: amd
// RUN: kiln-translate --target=hip:gfx950 --emit=amdgcn %s | FileCheck %s --check-prefix=GFX950
// RUN: not kiln-translate --target=hip:gfx942 --emit=amdgcn %s 2>&1 | FileCheck %s --check-prefix=GFX942
// RUN: sed -e 's/, 16, 0, 0/, 4, 0, 0/' %s | kiln-translate --target=hip:gfx942 --emit=amdgcn - | FileCheck %s --check-prefix=GFX942-DWORD

// GFX950: global_load_lds_dwordx4
// GFX942-DWORD: global_load_lds_dword v
// GFX942: rocdl-lds-dma.mlir:[[@LINE+3]]:3: error: 16-byte LDS DMA is not supported on hip:gfx942 (supported: 1, 2, 4 bytes)
// GFX942-NOT: error
llvm.func @lds_dma(%g: !llvm.ptr<1>, %l: !llvm.ptr<3>) attributes {rocdl.kernel} {
  rocdl.global.load.lds %g, %l, 16, 0, 0
  llvm.return
}
