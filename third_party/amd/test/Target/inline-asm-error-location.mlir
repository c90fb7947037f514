// REQUIRES: amd
// RUN: not kiln-translate --target=hip:gfx942 --emit=hsaco %s -o %t.hsaco 2>&1 | FileCheck %s

// LLVM's integrated assembler rejects a statement of the second inline assembly (it echoes
// the statement after `<inline asm>:L:C:`): the error is at that op's location
// (lib/Target/InlineAsmLocation.cpp, Serialize.cpp), not at the module; the first, valid,
// assembly is told apart by its text.
llvm.func @two_asms(%out: !llvm.ptr<1>) attributes {rocdl.kernel} {
  %tid = rocdl.workitem.id.x : i32
  %a = llvm.inline_asm "v_lshlrev_b32 $0, 3, $1", "=v,v" %tid : (i32) -> i32
  // CHECK: inline-asm-error-location.mlir:[[@LINE+1]]:{{[0-9]+}}: error: LLVM code generation for hip:gfx942 failed on the inline assembly written here
  %b = llvm.inline_asm "v_lshlrev_b33 $0, 3, $1", "=v,v" %a : (i32) -> i32
  // CHECK: v_lshlrev_b33
  llvm.store %b, %out : i32, !llvm.ptr<1>
  llvm.return
}
